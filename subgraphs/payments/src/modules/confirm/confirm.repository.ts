import { AppError } from "@pos-cloud/common";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import { transitionWithin } from "../payment-intents/payment-intent.repository";

export type ConfirmRepository = ReturnType<typeof confirmRepository>;

export function confirmRepository(prisma: PrismaClient) {
  return {
    /**
     * Consumes the payment token and moves the intent to requires_action with its event and ledger row, all in one
     * transaction: a token used by a concurrent confirm, or an intent that moved meanwhile, changes nothing.
     */
    confirm: (
      id: string,
      token_hash: string,
      change: Prisma.PaymentIntentUncheckedUpdateManyInput & { status: string },
      now: Date,
    ) =>
      prisma.$transaction(async (tx) => {
        const consumed = await tx.paymentToken.updateMany({
          where: { token_hash, payment_intent_id: id, consumed_at: null, expires_at: { gt: now } },
          data: { consumed_at: now },
        });
        if (consumed.count === 0)
          throw new AppError("invalid_token", "the payment token is missing, invalid or expired");
        const intent = await transitionWithin(
          tx,
          id,
          ["requires_payment_method"],
          change,
          "payment_intent.requires_action",
          now,
        );
        if (!intent) throw new AppError("invalid_state", "the payment intent was confirmed or changed meanwhile");
        return intent;
      }),
  };
}
