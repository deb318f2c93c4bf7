import { newUlid, orderedUlids, type PaymentIntentEventType } from "@pos-cloud/common";
import type { LedgerTransaction, PaymentIntent, Prisma, PrismaClient } from "../../generated/prisma/client";

export type TransactionRepository = ReturnType<typeof transactionRepository>;

export type LedgerType =
  | "qr_created"
  | "paid"
  | "failed"
  | "authorized"
  | "captured"
  | "released"
  | "cancelled"
  | "refunded"
  | "refund_failed";

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
 * The rows of a capture, in order: the capture alone when it took the amount; else the authorisation, the capture
 * (more with a tip, less for a partial one) and, for less, the release of the rest.
 */
export function appendCaptureEntries(tx: Prisma.TransactionClient, captured: PaymentIntent, created_at: Date) {
  const { amount, amount_received } = captured;
  const entries: LedgerEntry[] =
    amount_received === amount
      ? [{ type: "captured", status: "succeeded", amount }]
      : [
          { type: "authorized", status: "succeeded", amount },
          { type: "captured", status: "succeeded", amount: amount_received },
          ...(amount_received < amount
            ? [{ type: "released" as const, status: "succeeded" as const, amount: amount - amount_received }]
            : []),
        ];
  const nextId = orderedUlids(created_at.getTime());
  return tx.ledgerTransaction.createMany({
    data: entries.map((entry) => ({ ...ledgerRow(captured, entry, created_at), id: `txn_${nextId()}` })),
  });
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
