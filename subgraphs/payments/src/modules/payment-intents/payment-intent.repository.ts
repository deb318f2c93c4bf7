import { AppError } from "@pos-cloud/common";
import type { PaymentIntent } from "../../generated/prisma/client";
import { type Prisma, type PrismaClient, Prisma as PrismaRuntime } from "../../generated/prisma/client";
import { appendLedgerEntry, type LedgerEntry, ledgerEntryForTransition } from "../ledger/transaction.repository";
import { appendIntentEvent, type PaymentIntentEventType } from "../outbox/outbox.repository";

export type PaymentIntentRepository = ReturnType<typeof paymentIntentRepository>;

/** Runs inside the write's transaction, after the intent is written (an idempotency record, for example). */
export type WithinTransaction = (tx: Prisma.TransactionClient, intent: PaymentIntent) => Promise<void>;

export interface IntentListFilter {
  client_partner_id: number;
  merchant_store_id?: string;
  status?: string;
  limit: number;
  offset: number;
}

/** What a status change writes besides the intent: its event, and a ledger row unless `ledger` says otherwise. */
async function recordChange(
  tx: Prisma.TransactionClient,
  event: PaymentIntentEventType,
  intent: PaymentIntent,
  occurred_at: Date,
  ledger: LedgerEntry | null | undefined,
) {
  await appendIntentEvent(tx, event, intent, occurred_at);
  const entry = ledger === undefined ? ledgerEntryForTransition(event, intent) : ledger;
  if (entry) await appendLedgerEntry(tx, intent, entry, occurred_at);
}

/**
 * Moves an intent from one of `from` to a new status inside the caller's transaction, with its event and ledger
 * row. The update is conditional on the current status, so of two racing transitions only one happens; null when
 * it lost. `ledger` replaces the row the transition would write (null: none).
 */
export async function transitionWithin(
  tx: Prisma.TransactionClient,
  id: string,
  from: string[],
  change: Prisma.PaymentIntentUncheckedUpdateManyInput & { status: string },
  event: PaymentIntentEventType,
  occurred_at: Date,
  ledger?: LedgerEntry | null,
): Promise<PaymentIntent | null> {
  const { count } = await tx.paymentIntent.updateMany({
    where: { id, status: { in: from } },
    data: { ...change, updated_at: occurred_at },
  });
  if (count === 0) return null;
  const intent = await tx.paymentIntent.findUniqueOrThrow({ where: { id } });
  await recordChange(tx, event, intent, occurred_at, ledger);
  return intent;
}

const isUniqueViolation = (error: unknown) =>
  error instanceof PrismaRuntime.PrismaClientKnownRequestError && error.code === "P2002";

export function paymentIntentRepository(prisma: PrismaClient) {
  return {
    countByStore: (store_id: number, status?: string[]) =>
      prisma.paymentIntent.count({ where: { store_id, ...(status ? { status: { in: status } } : {}) } }),

    findById: (id: string) => prisma.paymentIntent.findUnique({ where: { id } }),

    findForPartner: (id: string, client_partner_id: number) =>
      prisma.paymentIntent.findFirst({ where: { id, client_partner_id } }),

    list: ({ client_partner_id, merchant_store_id, status, limit, offset }: IntentListFilter) =>
      prisma.paymentIntent.findMany({
        where: { client_partner_id, merchant_store_id, status },
        orderBy: [{ created_at: "desc" }, { id: "desc" }],
        take: limit,
        skip: offset,
      }),

    /** Open intents of a partner past their expiry, so a list shows them as the expiry made them. */
    overdue: (client_partner_id: number, statuses: string[], now: Date) =>
      prisma.paymentIntent.findMany({
        where: { client_partner_id, status: { in: statuses }, expires_at: { lte: now } },
        take: 100,
      }),

    findToken: (token_hash: string) => prisma.paymentToken.findUnique({ where: { token_hash } }),

    /** The intent, its payment token and its created event, in one transaction; a taken merchant_ref_id is a 409. */
    async create(
      data: Prisma.PaymentIntentUncheckedCreateInput,
      token: { token_hash: string; expires_at: Date },
      occurred_at: Date,
      within: WithinTransaction,
    ): Promise<PaymentIntent> {
      try {
        return await prisma.$transaction(async (tx) => {
          const intent = await tx.paymentIntent.create({ data });
          await tx.paymentToken.create({ data: { ...token, payment_intent_id: intent.id } });
          await recordChange(tx, "payment_intent.created", intent, occurred_at, undefined);
          await within(tx, intent);
          return intent;
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        throw new AppError("conflict", "merchant_ref_id is already used by another payment intent of this merchant", {
          field: "merchant_ref_id",
          constraint: "unique",
        });
      }
    },

    /**
     * Moves an intent from one of `from` to a new status and writes its event in the same transaction. The update
     * is conditional on the current status, so of two racing transitions only one happens; null when it lost.
     */
    transition: (
      id: string,
      from: string[],
      change: Prisma.PaymentIntentUncheckedUpdateManyInput & { status: string },
      event: PaymentIntentEventType,
      occurred_at: Date,
      within?: WithinTransaction,
    ) =>
      prisma.$transaction(async (tx) => {
        const intent = await transitionWithin(tx, id, from, change, event, occurred_at);
        if (intent) await within?.(tx, intent);
        return intent;
      }),
  };
}
