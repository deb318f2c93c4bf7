import type { Job } from "@pos-cloud/common/jobs";
import { messageRetryJob } from "@pos-cloud/common/messages";
import type { PosDeps } from "./context";

/** A minute: a payment a crash interrupted waits about that long before the recovery pass finishes or undoes it. */
const RECOVERY_INTERVAL_MS = 60_000;

/**
 * POS's periodic work: the outbox publisher of the store feed and its cleanup, the recovery pass (card and QR
 * payments a crash left pending without their intent are cancelled at the gateway and failed, Idempotency-Keys a
 * crash left processing are finished or released), the retries of its e-mail and, once an acquirer is configured, the daily card settlement
 * exchange. Rows are claimed, so any number of processes may run them.
 */
export function posJobs(
  deps: Pick<PosDeps, "payments" | "cardExchange" | "messages">,
  publisher: { jobs(options: { name: string }): Job[] },
): Job[] {
  return [
    ...publisher.jobs({ name: "pos" }),
    {
      name: "pos-payment-recovery",
      schedule: { everyMs: RECOVERY_INTERVAL_MS },
      run: () => deps.payments.recoverStalePayments(),
    },
    messageRetryJob("pos-message-retries", deps.messages),
    ...(deps.cardExchange.configured ? [deps.cardExchange.job()] : []),
  ];
}
