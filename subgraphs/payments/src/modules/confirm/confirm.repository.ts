import { AppError, newUlid } from "@pos-cloud/common";
import { CLAIM_LEASE_MS, claimDue, reschedule } from "../../claims";
import { type ConfirmAttempt, Prisma, type PrismaClient } from "../../generated/prisma/client";
import { type IntentChange, transitionWithin } from "../payment-intents/payment-intent-transition.repository";

export type ConfirmRepository = ReturnType<typeof confirmRepository>;

/** What a confirm writes on the intent: the QR's provider and transaction, and its first poll due at once. */
export type ConfirmChange = IntentChange & { provider_transaction_id: string };

/** How an attempt ended; `provider_transaction_id` alone records what the recovery pass learned. */
export type AttemptOutcome = Partial<Pick<ConfirmAttempt, "status" | "provider_transaction_id" | "failure_code">>;

export function confirmRepository(prisma: PrismaClient) {
  const update = (id: string, outcome: AttemptOutcome, now: Date) =>
    prisma.confirmAttempt.update({ where: { id }, data: { ...outcome, updated_at: now } });

  return {
    /**
     * Records the attempt before its provider is called. The recovery pass takes it only after a lease, when the
     * request that made it has finished or died (claims.ts).
     */
    begin: (payment_intent_id: string, provider_name: string, payment_method_type: string, now: Date) =>
      prisma.confirmAttempt.create({
        data: {
          id: `ca_${newUlid(now.getTime())}`,
          payment_intent_id,
          provider_name,
          payment_method_type,
          status: "pending",
          created_at: now,
          updated_at: now,
          next_poll_at: new Date(now.getTime() + CLAIM_LEASE_MS),
        },
      }),

    /**
     * Consumes the payment token, moves the intent to requires_action with its event and ledger row, and settles the
     * attempt, all in one transaction: a token used by a concurrent confirm, or an intent that moved meanwhile,
     * changes nothing.
     */
    confirm: (attempt_id: string, id: string, token_hash: string, change: ConfirmChange, now: Date) =>
      prisma.$transaction(async (tx) => {
        const consumed = await tx.paymentToken.updateMany({
          where: { token_hash, payment_intent_id: id, consumed_at: null, expires_at: { gt: now } },
          data: { consumed_at: now },
        });
        if (consumed.count === 0)
          throw new AppError("invalid_token", "the payment token is missing, invalid or expired");
        const intent = await transitionWithin(tx, id, "confirm", change, now);
        if (!intent)
          throw new AppError("invalid_state", "the payment intent was confirmed or changed meanwhile", {
            event: "confirm",
          });
        await tx.confirmAttempt.update({
          where: { id: attempt_id },
          data: { status: "succeeded", provider_transaction_id: change.provider_transaction_id, updated_at: now },
        });
        return intent;
      }),

    /**
     * The recovery pass found that the customer paid the QR of a dead confirm: the intent takes it, as the confirm
     * would have (without its token), if it still waits for one. False when it moved on.
     */
    attach: (attempt_id: string, id: string, change: ConfirmChange, now: Date) =>
      prisma.$transaction(async (tx) => {
        const intent = await transitionWithin(tx, id, "confirm", change, now);
        if (!intent) return false;
        await tx.confirmAttempt.update({ where: { id: attempt_id }, data: { status: "succeeded", updated_at: now } });
        return true;
      }),

    update,

    findIntent: (id: string) => prisma.paymentIntent.findUniqueOrThrow({ where: { id } }),

    /** Claims attempts still pending after their lease: their request died, or left a QR to cancel (claims.ts). */
    async claimUnfinished(now: Date, limit: number) {
      const ids = await claimDue(prisma, "confirm_attempts", Prisma.sql`status = 'pending'`, now, limit);
      return prisma.confirmAttempt.findMany({ where: { id: { in: ids } } });
    },

    /** When the recovery pass tries again an attempt it could not resolve (its provider unreachable). */
    retryLater: (id: string, attempts: number, due: Date) => reschedule(prisma, "confirm_attempts", id, attempts, due),
  };
}
