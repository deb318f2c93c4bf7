import {
  AppError,
  type CursorPage,
  type PaymentIntentEvent,
  paymentIntentMachine,
  readPageByTime,
  type StoreCount,
} from "@pos-cloud/common";
import type { PreparedSql } from "@pos-cloud/common/storage";
import { lockDue, onPrisma, type TaskTable } from "@pos-cloud/common/tasks";
import type { PaymentIntent } from "../../generated/prisma/client";
import { type Prisma, type PrismaClient, Prisma as PrismaRuntime } from "../../generated/prisma/client";
import { ledgerEntryForTransition, ledgerRow } from "../ledger/transaction.repository";
import { intentEventRow } from "../outbox/outbox.repository";
import { type IntentChange, type TransitionOptions, transitionWithin } from "./payment-intent-transition.repository";

export type PaymentIntentRepository = ReturnType<typeof paymentIntentRepository>;

/** Runs inside the write's transaction, after the intent is written (an idempotency record, for example). */
export type WithinTransaction = (tx: Prisma.TransactionClient, intent: PaymentIntent) => Promise<void>;

export interface IntentListFilter {
  client_partner_id: number;
  merchant_store_id?: string;
  status?: string;
  /** The stores a restricted key reaches; absent: every store of the partner. */
  store_id?: { in: number[] };
  /** Only intents changed at or after this time (`updated_at`). */
  updated_at?: { gte: Date };
}

/** A statement that broke the unique merchant_ref_id of a merchant (the other keys are random). */
/** Open intents are `intent_expiry` tasks, due at their `expires_at`. */
const expiryTasks: TaskTable = { kind: "intent_expiry", table: "payment_intents", key: "id", due: "expires_at" };

const isDuplicateReference = (error: unknown) =>
  (error as { code?: string }).code === "23505" &&
  (error as { constraint?: string }).constraint?.includes("merchant_ref_id") === true;

type Column = string | number | boolean | Date | null | string[] | Prisma.JsonValue;

/** `INSERT INTO table (columns) VALUES (...)` of one row; arrays are text[], objects jsonb. */
function insertRow(table: string, row: Record<string, Column>) {
  const columns = Object.keys(row);
  const values = Object.values(row).map((value) => {
    if (Array.isArray(value)) return PrismaRuntime.sql`${value}::text[]`;
    if (value !== null && typeof value === "object" && !(value instanceof Date)) {
      return PrismaRuntime.sql`${JSON.stringify(value)}::jsonb`;
    }
    return PrismaRuntime.sql`${value}`;
  });
  return PrismaRuntime.sql`INSERT INTO ${PrismaRuntime.raw(table)} (${PrismaRuntime.raw(columns.join(", "))})
    VALUES (${PrismaRuntime.join(values)})`;
}

/** One intent by its id: anyone's, a store's, a partner's, or only where a partner's intent belongs. */
function intentsById(prisma: PrismaClient) {
  return {
    findById: (id: string) => prisma.paymentIntent.findUnique({ where: { id } }),

    findInStore: (id: string, store_id: number, merchant_id: number) =>
      prisma.paymentIntent.findFirst({ where: { id, store_id, merchant_id } }),

    findForPartner: (id: string, client_partner_id: number) =>
      prisma.paymentIntent.findFirst({ where: { id, client_partner_id } }),

    storeOf: (id: string, client_partner_id: number) =>
      prisma.paymentIntent.findFirst({
        where: { id, client_partner_id },
        select: { store_id: true, merchant_id: true },
      }),
  };
}

export function paymentIntentRepository(prisma: PrismaClient, sql: PreparedSql) {
  return {
    /**
     * Intents per store for many stores in one statement, by store and the merchant on each intent: `[store_id,
     * merchant_id, count]`. The store ids go as one array parameter; the counts come back as one JSON value, because
     * PGlite parses a result row by row in JavaScript and 400 rows cost about twice one JSON document
     * (docs/benchmarks.md, "Hierarchy read").
     */
    countByStores: async (storeIds: number[]) =>
      (
        await sql<{ counts: StoreCount[] }>(
          PrismaRuntime.sql`SELECT coalesce(json_agg(json_build_array(store_id, merchant_id, count)), '[]') AS counts
            FROM (SELECT store_id, merchant_id, count(*)::int AS count FROM payment_intents
              WHERE store_id = ANY(${storeIds}::int[]) GROUP BY store_id, merchant_id) c`,
        )
      )[0]!.counts,

    ...intentsById(prisma),

    list: (where: IntentListFilter, page: CursorPage) =>
      readPageByTime(page, "desc", {
        rows: (take, after) =>
          prisma.paymentIntent.findMany({
            where: { AND: [where, after] },
            orderBy: [{ created_at: "desc" }, { id: "desc" }],
            take,
            skip: page.offset,
          }),
        total: () => prisma.paymentIntent.count({ where }),
      }),

    /** Open intents of a partner past their expiry, so a list shows them as the expiry made them. */
    overdue: (client_partner_id: number, statuses: string[], now: Date) =>
      prisma.paymentIntent.findMany({
        where: { client_partner_id, status: { in: statuses }, expires_at: { lte: now } },
        take: 100,
      }),

    /**
     * Moves open intents past their expiry (`from`) with `change`, each with its event, in one transaction that
     * locks them (the task queue's `lockDue`): another instance's sweep takes other intents meanwhile, and a
     * worker that dies mid-sweep commits none of its changes, so the next sweep finds them again.
     */
    expireOverdue: (change: IntentChange, now: Date, limit: number) =>
      prisma.$transaction(async (tx) => {
        const from = paymentIntentMachine.fromStates("expire");
        const where = PrismaRuntime.sql`status = ANY(${from}::text[]) AND expires_at <= ${now}`;
        const due = await lockDue<{ id: string }>(onPrisma(tx), expiryTasks, { where, limit });
        let expired = 0;
        for (const { id } of due) if (await transitionWithin(tx, id, "expire", change, now)) expired++;
        return expired;
      }),

    findToken: (token_hash: string) => prisma.paymentToken.findUnique({ where: { token_hash } }),

    /**
     * The intent, its payment token, its created event, its ledger row (a cash intent is paid at once) and the
     * idempotency record `kept`, in one statement: they commit together, in one round trip, since this is the
     * gateway's hot path (docs/benchmarks.md). A taken merchant_ref_id is a 409.
     */
    async create(intent: PaymentIntent, token: { token_hash: string; expires_at: Date }, kept: Prisma.Sql | null) {
      const entry = ledgerEntryForTransition("payment_intent.created", intent);
      const writes = [
        insertRow("payment_intents", intent),
        insertRow("payment_tokens", { ...token, payment_intent_id: intent.id, created_at: intent.created_at }),
        insertRow("outbox_events", intentEventRow("payment_intent.created", intent, intent.created_at)),
        ...(entry ? [insertRow("transactions", ledgerRow(intent, entry, intent.created_at))] : []),
        ...(kept ? [kept] : []),
      ];
      const steps = writes.map(
        (write, index) => PrismaRuntime.sql`step${PrismaRuntime.raw(String(index))} AS (${write})`,
      );
      try {
        await sql(PrismaRuntime.sql`WITH ${PrismaRuntime.join(steps)} SELECT 1`);
      } catch (error) {
        if (!isDuplicateReference(error)) throw error;
        throw new AppError("conflict", "merchant_ref_id is already used by another payment intent of this merchant", {
          field: "merchant_ref_id",
          constraint: "unique",
        });
      }
    },

    /**
     * Moves an intent from `from` by `event` and writes its event in the same transaction. The update is
     * conditional on the current status, so of two racing transitions only one happens; null when it lost.
     */
    transition: (
      id: string,
      from: string,
      event: PaymentIntentEvent,
      change: IntentChange,
      occurred_at: Date,
      within?: WithinTransaction,
      options: Omit<TransitionOptions, "from"> = {},
    ) =>
      prisma.$transaction(async (tx) => {
        const intent = await transitionWithin(tx, id, event, change, occurred_at, { ...options, from: [from] });
        if (intent) await within?.(tx, intent);
        return intent;
      }),
  };
}
