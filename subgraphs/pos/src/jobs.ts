import { STORE_TIME_ZONE } from "@pos-cloud/common";
import type { Job } from "@pos-cloud/common/jobs";
import { messageRetryJob } from "@pos-cloud/common/messages";
import type { PosDeps } from "./context";

/** The spec's accounting export: daily at 00:00 UTC+9, for the business day that just ended. */
export const ACCOUNTING_EXPORT_CRON = "0 0 * * *";

/** How often the accounting export's due retries (30 minutes apart) are looked for. */
const ACCOUNTING_RETRY_PASS_MS = 60_000;

/** A minute: a payment a crash interrupted waits about that long before the recovery pass finishes or undoes it. */
const RECOVERY_INTERVAL_MS = 60_000;

/**
 * POS's periodic work: the outbox publisher of the store feed and its cleanup, the recovery pass (card and QR
 * payments a crash left pending without their intent are cancelled at the gateway and failed, approved card
 * payments whose capture the gateway did not take are captured, Idempotency-Keys a crash left processing are
 * finished or released), the recovery pass of refunds a crash or a lost answer left
 * pending (sent again under their key, so the gateway refunds once), the retries of its e-mail, the daily accounting
 * export with its retries and, once an acquirer is configured, the daily card settlement exchange with its retries. Rows are claimed, so any number of processes may run them.
 */
export function posJobs(
  deps: Pick<PosDeps, "payments" | "refunds" | "cardExchange" | "messages" | "accountingExports">,
  publisher: { jobs(options: { name: string }): Job[] },
): Job[] {
  return [
    ...publisher.jobs({ name: "pos" }),
    {
      name: "pos-payment-recovery",
      schedule: { everyMs: RECOVERY_INTERVAL_MS },
      run: () => deps.payments.recoverStalePayments(),
    },
    {
      name: "pos-refund-recovery",
      schedule: { everyMs: RECOVERY_INTERVAL_MS },
      // A process that starts after a crash finishes what the crash left at once, not a minute later.
      runAtStart: true,
      run: () => deps.refunds.recoverStale(),
    },
    messageRetryJob("pos-message-retries", deps.messages),
    ...(deps.cardExchange.configured ? deps.cardExchange.jobs() : []),
    {
      name: "accounting-export",
      schedule: { cron: ACCOUNTING_EXPORT_CRON, timezone: STORE_TIME_ZONE },
      alert: "accounting_export_failed",
      run: () => deps.accountingExports.exportEndedDay(),
    },
    {
      name: "accounting-export-retries",
      schedule: { everyMs: ACCOUNTING_RETRY_PASS_MS },
      // Retries a stop or a crash left due are made at start, not a minute later.
      runAtStart: true,
      run: () => deps.accountingExports.deliverDue(),
    },
  ];
}
