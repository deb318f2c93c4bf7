import { type CursorPage, readPageByTime } from "@pos-cloud/common";
import { claimDue, onPrisma, type TaskCensus, type TaskTable } from "@pos-cloud/common/tasks";
import { type Payment, Prisma, type PrismaClient } from "../../generated/prisma/client";
import type { ListScope } from "../../list-scope";
import type { PaymentFilter } from "./payment.inputs";
import { inFlight, paymentMachine } from "./payment.machine";

export type PaymentRepository = ReturnType<typeof paymentRepository>;
export type Tx = Prisma.TransactionClient;
export type PaymentRow = Payment;
/** What the card app's approval leaves on its payment. */
export type CardApproval = Pick<
  Payment,
  "approval_code" | "card_document_number" | "card_last_4" | "card_brand" | "card_arn"
>;
/** What is noted on a pending card payment before its capture: its approval, and the tip added on the slip. */
export type NotedApproval = CardApproval & Pick<Payment, "added_tip_amount" | "tip_amount" | "total_amount">;

/** Payment rows as such: written, read, locked one at a time, listed. */
function paymentRows(prisma: PrismaClient) {
  return {
    /** Locks a payment's row for the transaction and reads it: refunds of one payment go one at a time. */
    async lock(tx: Tx, id: string): Promise<PaymentRow> {
      await tx.$queryRaw`SELECT id FROM payments WHERE id = ${id}::uuid FOR UPDATE`;
      return tx.payment.findUniqueOrThrow({ where: { id } });
    },

    create: (tx: Tx, data: Prisma.PaymentUncheckedCreateInput) => tx.payment.create({ data }),

    /**
     * What a customer's bills took within [start, end): payments completed in it (their amount, tips left out, as the
     * lifetime total counts), less what refunds that succeeded in it took from the bills (a refund takes from the
     * amount before the tip, as `billShareOfRefunds`, so the share is counted against the payment's earlier refunds).
     */
    async customerSpend(customer: { id: string; merchant_id: number }, start: Date, end: Date) {
      const [row] = await prisma.$queryRaw<{ paid: bigint; payments: number; refunded: bigint; refunds: number }[]>`
        WITH paid AS (
          SELECT coalesce(sum(p.amount), 0)::bigint AS paid, count(*)::int AS payments
          FROM payments p JOIN bills b ON b.id = p.bill_id
          WHERE b.customer_id = ${customer.id}::uuid AND b.merchant_id = ${customer.merchant_id}
            AND p.status IN ('completed', 'refunded') AND p.completed_at >= ${start} AND p.completed_at < ${end}
        ), given AS (
          SELECT r.completed_at, r.amount, p.amount AS payment_amount,
            sum(r.amount) OVER (PARTITION BY r.payment_id ORDER BY r.completed_at, r.id) AS through
          FROM pos_refunds r JOIN payments p ON p.id = r.payment_id JOIN bills b ON b.id = r.bill_id
          WHERE b.customer_id = ${customer.id}::uuid AND b.merchant_id = ${customer.merchant_id}
            AND r.status = 'succeeded'
        )
        SELECT paid.paid, paid.payments,
          coalesce(sum(least(g.through, g.payment_amount) - least(g.through - g.amount, g.payment_amount)), 0)::bigint
            AS refunded,
          count(g.amount)::int AS refunds
        FROM paid LEFT JOIN given g ON g.completed_at >= ${start} AND g.completed_at < ${end}
        GROUP BY paid.paid, paid.payments`;
      const { paid, payments, refunded, refunds } = row!;
      return { paid: Number(paid), payments, refunded: Number(refunded), refunds };
    },

    find: (id: string, tx: Tx | PrismaClient = prisma) => tx.payment.findUnique({ where: { id } }),

    /**
     * Card and e-money payments still pending whose approval was noted before `before` (every approval has its slip
     * number; an e-money one may have no approval code), longest waiting first: their capture at the gateway was
     * refused or never answered. Not locked: the capture's key and the conditional settle make a second process's
     * attempt harmless.
     */
    approvedUncaptured: (before: Date, take: number) =>
      prisma.payment.findMany({
        where: {
          status: "pending",
          method_type: { in: ["CREDIT_CARD", "EMONEY"] },
          card_document_number: { not: null },
          payment_intent_id: { not: null },
          updated_at: { lt: before },
        },
        orderBy: { updated_at: "asc" },
        take,
      }),

    findByIntent: (tx: Tx, payment_intent_id: string) => tx.payment.findUnique({ where: { payment_intent_id } }),
    update: (tx: Tx | PrismaClient, id: string, data: Prisma.PaymentUncheckedUpdateInput) =>
      tx.payment.update({ where: { id }, data }),

    list(scope: ListScope, filter: PaymentFilter, page: CursorPage) {
      const where = {
        ...scope,
        bill_id: filter.bill_id,
        status: filter.status,
        method_type: filter.method,
        total_amount: { gte: filter.min_amount, lte: filter.max_amount },
        created_at: { gte: filter.from, lt: filter.to },
      } satisfies Prisma.PaymentWhereInput;
      return readPageByTime(page, "asc", {
        rows: (take, after) =>
          prisma.payment.findMany({
            where: { AND: [where, after] },
            orderBy: [{ created_at: "desc" }, { id: "asc" }],
            take,
            skip: page.offset,
          }),
        total: () => prisma.payment.count({ where }),
      });
    },

    transaction: <T>(work: (tx: Tx) => Promise<T>) => prisma.$transaction(work, { timeout: 20_000, maxWait: 20_000 }),
  };
}

/**
 * Payments still in flight (card or QR not yet completed): their locks, what they hold, their settling (once per
 * gateway event).
 */
/** A card or QR payment still pending without its intent is a `pos_payment_recovery` task, oldest first. */
const interruptedPayments: TaskTable = {
  kind: "pos_payment_recovery",
  table: "payments",
  key: "id",
  due: "created_at",
  lockedUntil: "recovery_locked_until",
};

/** For the task gauges: the pass never gives up on an interrupted payment. */
export const interruptedPaymentCensus: TaskCensus = {
  table: interruptedPayments,
  pending: Prisma.sql`status = 'pending' AND payment_intent_id IS NULL`,
};

const inFlightRows = {
  /**
   * Serialises the payment writes of one bill (create and completion) with a transaction-scoped advisory lock, so
   * the money reserved by payments in flight is counted before another payment is taken.
   */
  lockBillPayments: (tx: Tx, billId: string) =>
    tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`pos-payments:${billId}`}, 0))`,

  /** What payments still in flight (card or QR not yet completed) hold of a bill, or of one split of it. */
  async reserved(tx: Tx, billId: string, splitId: string | null) {
    const sum = await tx.payment.aggregate({
      where: { bill_id: billId, split_id: splitId ?? undefined, status: { in: [...inFlight] } },
      _sum: { amount: true },
    });
    return sum._sum.amount ?? 0;
  },

  /** Card and QR payments not yet completed, oldest first. */
  inFlight: (tx: Tx, where: Prisma.PaymentWhereInput) =>
    tx.payment.findMany({
      where: { ...where, status: { in: [...inFlight] } },
      select: { id: true, method_type: true, bill_id: true },
      orderBy: { created_at: "asc" },
    }),

  /**
   * Takes a lease until `until` on the oldest payment still pending without its intent taken before `before` (a card
   * or QR one not yet asked of the gateway, a cash one not yet completed) whose lease, if any, ended by `now`: the
   * recovery pass then calls the gateway with no transaction open, and other processes leave the payment alone until
   * the lease ends. Rows another process is claiming are passed over (`SKIP LOCKED`). Null when none is left.
   */
  async claimInterrupted(tx: Tx, before: Date, now: Date, until: Date): Promise<PaymentRow | null> {
    const rows = await claimDue<{ id: string }>(onPrisma(tx), interruptedPayments, {
      where: Prisma.sql`status = 'pending' AND payment_intent_id IS NULL AND created_at < ${before}`,
      now,
      leaseUntil: until,
      limit: 1,
      returning: Prisma.sql`task.id`,
    });
    return rows[0] ? tx.payment.findUniqueOrThrow({ where: { id: rows[0].id } }) : null;
  },

  /**
   * Notes the card app's approval on a payment still in flight, before its capture is asked for; false when another
   * request settled it first.
   */
  async noteApproval(tx: Tx, id: string, approval: NotedApproval) {
    const noted = await tx.payment.updateMany({
      where: { id, status: { in: paymentMachine.fromStates("complete") } },
      data: approval,
    });
    return noted.count === 1;
  },

  /**
   * Moves a payment still in flight by `event`, to the state the machine gives; false when another request moved
   * it first (it is then left alone).
   */
  async settle(
    tx: Tx,
    id: string,
    event: "complete" | "fail",
    data: Omit<Prisma.PaymentUncheckedUpdateInput, "status">,
  ) {
    const moved = await tx.payment.updateMany({
      where: { id, status: { in: paymentMachine.fromStates(event) } },
      data: { ...data, status: paymentMachine.target(event).to },
    });
    return moved.count === 1;
  },

  /** Takes a gateway event once: false when it was applied already (in a transaction that committed). */
  async firstDelivery(tx: Tx, eventId: string) {
    const inserted = await tx.$executeRaw`INSERT INTO processed_gateway_events (id) VALUES (${eventId})
        ON CONFLICT (id) DO NOTHING`;
    return inserted === 1;
  },
};

export function paymentRepository(prisma: PrismaClient) {
  return { ...paymentRows(prisma), ...inFlightRows };
}
