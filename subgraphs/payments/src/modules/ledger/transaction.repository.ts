import { newUlid, type PaymentIntentEventType } from "@pos-cloud/common";
import type { LedgerTransaction, PaymentIntent, Prisma, PrismaClient } from "../../generated/prisma/client";

export type TransactionRepository = ReturnType<typeof transactionRepository>;

export type LedgerType = "qr_created" | "paid" | "failed" | "captured" | "cancelled" | "refunded" | "refund_failed";

export interface LedgerEntry {
  type: LedgerType;
  status: "succeeded" | "failed";
  amount: number;
  provider_refund_id?: string | null;
  refund_id?: string | null;
  failure_code?: string | null;
  failure_message?: string | null;
}

/** The ledger row of an entry: the intent gives currency and references. */
export function ledgerRow(intent: PaymentIntent, entry: LedgerEntry, created_at: Date): LedgerTransaction {
  return {
    id: `txn_${newUlid(created_at.getTime())}`,
    payment_intent_id: intent.id,
    client_partner_id: intent.client_partner_id,
    currency: intent.currency,
    provider_name: intent.provider_name,
    provider_transaction_id: intent.provider_transaction_id,
    provider_refund_id: null,
    refund_id: null,
    failure_code: null,
    failure_message: null,
    ...entry,
    created_at,
  };
}

/** Writes one ledger row in the transaction of the change it describes. */
export function appendLedgerEntry(
  tx: Prisma.TransactionClient,
  intent: PaymentIntent,
  entry: LedgerEntry,
  created_at: Date,
): Promise<LedgerTransaction> {
  return tx.ledgerTransaction.create({ data: ledgerRow(intent, entry, created_at) });
}

/**
 * The money movement a status change stands for, if any. Every transition of an intent goes through here, so
 * capture, cancel and expiry are in the ledger without their callers knowing of it.
 */
export function ledgerEntryForTransition(event: PaymentIntentEventType, intent: PaymentIntent): LedgerEntry | null {
  const amount = intent.amount;
  switch (event) {
    case "payment_intent.created":
      return intent.status === "succeeded" ? { type: "captured", status: "succeeded", amount } : null;
    case "payment_intent.requires_action":
      return intent.provider_transaction_id ? { type: "qr_created", status: "succeeded", amount } : null;
    case "payment_intent.succeeded":
      return { type: intent.processing_mode === "pgw_processed" ? "paid" : "captured", status: "succeeded", amount };
    case "payment_intent.failed":
      return {
        type: "failed",
        status: "failed",
        amount,
        failure_code: intent.failure_code,
        failure_message: intent.failure_message,
      };
    case "payment_intent.cancelled":
      return { type: "cancelled", status: "succeeded", amount, failure_code: intent.failure_code };
    default:
      return null;
  }
}

export function transactionRepository(prisma: PrismaClient) {
  return {
    listForIntent: (payment_intent_id: string) =>
      prisma.ledgerTransaction.findMany({
        where: { payment_intent_id },
        orderBy: [{ created_at: "asc" }, { id: "asc" }],
      }),
    findForPartner: (id: string, client_partner_id: number) =>
      prisma.ledgerTransaction.findFirst({ where: { id, client_partner_id } }),
    intentOf: (id: string, client_partner_id: number) =>
      prisma.ledgerTransaction.findFirst({ where: { id, client_partner_id }, select: { payment_intent_id: true } }),
  };
}
