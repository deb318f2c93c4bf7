import type { Job } from "@pos-cloud/common/jobs";
import type { PaymentsDeps } from "./context";

const MIN_POLL_INTERVAL_MS = 100;
const MAX_POLL_INTERVAL_MS = 60_000;
/** Between probes of the endpoints of keys with automatic redelivery and dead letters. */
const PROBE_INTERVAL_MS = 60_000;

/**
 * The gateway's periodic work: the outbox publisher and its cleanup, the poll of providers that must be asked, and
 * the partner webhook deliveries, the repairs at the same pace (provider refunds left pending, overdue intents, confirms a crash interrupted, API
 * keys reaching their expiry), and each provider's daily reconciliation. Every job claims its rows, so any number of processes may run them.
 */
export function paymentsJobs(
  deps: Pick<
    PaymentsDeps,
    | "poller"
    | "refunds"
    | "paymentIntents"
    | "confirmRecovery"
    | "apiKeyExpiry"
    | "apiKeyWebhooks"
    | "partnerWebhooks"
    | "reconciliation"
  >,
  publisher: { jobs(options: { name: string }): Job[] },
  pollIntervalMs: number,
): Job[] {
  const schedule = { everyMs: Math.min(Math.max(pollIntervalMs, MIN_POLL_INTERVAL_MS), MAX_POLL_INTERVAL_MS) };
  return [
    ...publisher.jobs({ name: "payments" }),
    deps.partnerWebhooks.job(),
    { name: "payment-poll", schedule, run: () => deps.poller.pollOnce() },
    { name: "provider-refund-resume", schedule, run: () => deps.refunds.resumePending() },
    { name: "intent-expiry", schedule, run: () => deps.paymentIntents.expireOverdue() },
    { name: "confirm-recovery", schedule, run: () => deps.confirmRecovery.recoverAttempts() },
    { name: "api-key-expiry", schedule, run: () => deps.apiKeyExpiry.sweep() },
    // Once a minute: each probe is a delivery of its own, with its three attempts over about 25 s.
    {
      name: "webhook-redelivery-probe",
      schedule: { everyMs: PROBE_INTERVAL_MS },
      run: () => deps.apiKeyWebhooks.probeDeadLetters(),
    },
    ...deps.reconciliation.jobs(),
  ];
}
