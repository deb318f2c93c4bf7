import { AppError, invalidField, newUlid } from "@pos-cloud/common";
import type { PaymentIntent, Prisma, PrismaClient, Refund } from "../../generated/prisma/client";
import { appendLedgerEntry } from "../ledger/transaction.repository";
import { transitionWithin } from "../payment-intents/payment-intent.repository";

export type RefundRepository = ReturnType<typeof refundRepository>;

export interface RefundRequest {
  payment_intent_id: string;
  client_partner_id: number;
  /** Null: whatever is left. */
  amount: number | null;
  reason: string | null;
  /** The provider must be asked (QR): the refund starts pending and the intent goes to cancelling meanwhile. */
  viaProvider: boolean;
}

/** Runs in the transaction that settles a refund (the idempotency record). */
export type WithinRefund = (tx: Prisma.TransactionClient, refund: Refund) => Promise<void>;

const inProgress = () => new AppError("invalid_state", "a refund of this payment intent is in progress");

export function refundRepository(prisma: PrismaClient) {
  return {
    findIntent: (id: string, client_partner_id: number) =>
      prisma.paymentIntent.findFirst({ where: { id, client_partner_id } }),
    findIntentById: (id: string) => prisma.paymentIntent.findUnique({ where: { id } }),
    /** Provider refunds left pending by a call that never came back (a crash, a timeout), oldest first. */
    stalePending: (before: Date, limit: number) =>
      prisma.refund.findMany({
        where: { status: "pending", updated_at: { lt: before } },
        orderBy: { updated_at: "asc" },
        take: limit,
      }),
    listForIntent: (payment_intent_id: string) =>
      prisma.refund.findMany({ where: { payment_intent_id }, orderBy: { created_at: "asc" } }),
    /**
     * Records a refund under a lock on the intent row, so concurrent refunds are checked one after the other and
     * their sum never exceeds the amount. A provider refund leaves the intent in cancelling until `settle`; one
     * without a provider is final here, with its ledger row.
     */
    begin: (request: RefundRequest, now: Date, within: WithinRefund) =>
      prisma.$transaction(async (tx): Promise<{ refund: Refund; intent: PaymentIntent }> => {
        const locked = await tx.$queryRaw<{ id: string }[]>`
          SELECT id FROM payment_intents
          WHERE id = ${request.payment_intent_id} AND client_partner_id = ${request.client_partner_id}
          FOR UPDATE`;
        if (locked.length === 0) throw new AppError("not_found", "payment intent not found");
        const intent = await tx.paymentIntent.findUniqueOrThrow({ where: { id: request.payment_intent_id } });
        if (intent.status === "cancelling") throw inProgress();
        if (intent.status !== "succeeded") {
          throw new AppError("invalid_state", `a ${intent.status} payment intent cannot be refunded`, {
            status: intent.status,
          });
        }
        const taken = await tx.refund.aggregate({
          where: { payment_intent_id: intent.id, status: { in: ["pending", "succeeded"] } },
          _sum: { amount: true },
        });
        const remaining = intent.amount - (taken._sum.amount ?? 0);
        const amount = request.amount ?? remaining;
        if (remaining === 0 || amount > remaining) {
          throw invalidField("amount", "refundable_amount", `at most ${remaining} of ${intent.amount} can be refunded`);
        }
        const refund = await tx.refund.create({
          data: {
            id: `re_${newUlid(now.getTime())}`,
            payment_intent_id: intent.id,
            client_partner_id: intent.client_partner_id,
            amount,
            currency: intent.currency,
            reason: request.reason,
            status: request.viaProvider ? "pending" : "succeeded",
            created_at: now,
            updated_at: now,
          },
        });
        if (!request.viaProvider) {
          await appendLedgerEntry(
            tx,
            intent,
            { type: "refunded", status: "succeeded", amount, refund_id: refund.id },
            now,
          );
          await within(tx, refund);
          return { refund, intent };
        }
        const cancelling = await transitionWithin(
          tx,
          intent.id,
          ["succeeded"],
          { status: "cancelling" },
          "payment_intent.cancelling",
          now,
          null,
        );
        return { refund, intent: cancelling! };
      }),
    /** The provider's answer: the refund settled, the intent back to succeeded, the ledger row, in one transaction. */
    settle: (
      refund: Refund,
      outcome: { provider_refund_id: string } | { failure_code: string; failure_message: string },
      now: Date,
      within: WithinRefund,
    ) =>
      prisma.$transaction(async (tx) => {
        const succeeded = "provider_refund_id" in outcome;
        const settled = await tx.refund.update({
          where: { id: refund.id },
          data: { ...outcome, status: succeeded ? "succeeded" : "failed", updated_at: now },
        });
        const entry = succeeded
          ? { type: "refunded" as const, status: "succeeded" as const, provider_refund_id: outcome.provider_refund_id }
          : { type: "refund_failed" as const, status: "failed" as const, ...outcome };
        await transitionWithin(
          tx,
          refund.payment_intent_id,
          ["cancelling"],
          { status: "succeeded" },
          "payment_intent.succeeded",
          now,
          { ...entry, amount: refund.amount, refund_id: refund.id },
        );
        await within(tx, settled);
        return settled;
      }),
  };
}
