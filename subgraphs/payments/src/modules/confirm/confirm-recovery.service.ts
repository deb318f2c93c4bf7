import { AppError, logger } from "@pos-cloud/common";
import { countOutcome, type NextAttempt, nextAttempt, retryPolicies } from "@pos-cloud/common/tasks";
import type { Clock } from "../../clock";
import type { ConfirmAttempt } from "../../generated/prisma/client";
import type { ProviderCredentialStore, ProviderDirectory, ProviderPayment } from "../providers";
import type { ConfirmRepository } from "./confirm.repository";
import { confirmedChange, qrModes, qrRequest } from "./confirm.service";

export type ConfirmRecoveryService = ReturnType<typeof confirmRecoveryService>;

const BATCH = 50;
/** An attempt the provider could not be asked about is tried again after 1, 2, 4 ... minutes, at most 15. */

/**
 * Resolves confirm attempts whose request died between the provider call and the intent's write (a crash, a
 * timeout): the provider is asked for the attempt's QR again under the same idempotency key, which returns the one
 * it made (or makes one), and that QR is cancelled, since nobody was shown it; the web view's retry makes a new one.
 * A QR the customer paid anyway goes to its intent, as the confirm would have done. The attempt keeps the QR's
 * transaction, so the provider's later notifications about it find their intent (docs/decisions.md).
 */
export function confirmRecoveryService(deps: {
  confirmations: ConfirmRepository;
  providers: ProviderDirectory;
  credentials: ProviderCredentialStore;
  clock: Clock;
}) {
  const { confirmations, providers, credentials, clock } = deps;

  /** Cancels the attempt's QR, or finds out where its payment went; true when the attempt is settled. */
  async function resolve(attempt: ConfirmAttempt): Promise<boolean> {
    const intent = await confirmations.findIntent(attempt.payment_intent_id);
    let transaction = attempt.provider_transaction_id;
    if (!transaction && intent.expires_at <= clock()) {
      // Its QR, if the provider made one, was payable no longer than the intent lived: nothing is left to cancel.
      await confirmations.update(attempt.id, { status: "cancelled", failure_code: "expired" }, clock());
      return true;
    }
    const provider = providers.get(attempt.provider_name);
    const storeCredentials = await credentials.forStore(intent.store_id, provider.name);
    if (!transaction) {
      const mode = qrModes[attempt.payment_method_type]!;
      const qr = await provider.createQr(qrRequest(intent, mode, attempt.id, clock()), storeCredentials);
      transaction = qr.provider_transaction_id;
      await confirmations.update(attempt.id, { provider_transaction_id: transaction }, clock());
    }
    const payment: ProviderPayment = await provider
      .cancelPayment(transaction, storeCredentials)
      .catch((error: unknown) => {
        // A provider refuses to cancel a payment that moved on; its status says where it went.
        if (error instanceof AppError && error.code === "invalid_state") {
          return provider.getPaymentStatus(transaction, storeCredentials);
        }
        throw error;
      });
    if (payment.status === "pending") return false;
    if (payment.status === "cancelled" || payment.status === "failed") {
      await confirmations.update(attempt.id, { status: "cancelled", failure_code: "abandoned" }, clock());
      return true;
    }
    const now = clock();
    const change = confirmedChange(attempt.payment_method_type, provider.name, transaction, now);
    if (await confirmations.attach(attempt.id, intent.id, change, now)) return true;
    logger.error("a QR whose confirm died was paid, and its intent can no longer take it", {
      alert: "abandoned_qr_paid",
      payment_intent_id: intent.id,
      status: intent.status,
      provider: provider.name,
      provider_transaction_id: transaction,
      provider_status: payment.status,
    });
    await confirmations.update(attempt.id, { status: "failed", failure_code: "paid_after_abandon" }, clock());
    return true;
  }

  return {
    /** One pass over the due unfinished attempts (each instance claims its own); the number settled. */
    async recoverAttempts(): Promise<number> {
      let settled = 0;
      for (const attempt of await confirmations.claimUnfinished(clock(), BATCH)) {
        const resolved = await resolve(attempt).catch((error: unknown) => {
          logger.warn("recovering a confirm attempt failed", { attempt_id: attempt.id, error });
          return false;
        });
        if (resolved) {
          settled++;
          countOutcome("confirm_recovery", "done");
          continue;
        }
        const attempts = attempt.poll_attempts + 1;
        const next = nextAttempt(retryPolicies.confirm_recovery, attempts, clock()) as NextAttempt;
        await confirmations.retryLater(attempt.id, attempts, next.at);
        countOutcome("confirm_recovery", "retried");
      }
      return settled;
    },
  };
}
