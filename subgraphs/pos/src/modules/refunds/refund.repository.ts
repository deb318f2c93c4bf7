import { claimDue, onPrisma, type TaskCensus, type TaskTable } from "@pos-cloud/common/tasks";
import { type PosRefund, Prisma, type PrismaClient } from "../../generated/prisma/client";
import { type PosRefundEvent, posRefundMachine } from "./refund.machine";

export type RefundRepository = ReturnType<typeof refundRepository>;
export type Tx = Prisma.TransactionClient;
export type RefundRow = PosRefund;

/** A refund still pending after its request ended is a `pos_refund_recovery` task, oldest first. */
const staleRefunds: TaskTable = {
  kind: "pos_refund_recovery",
  table: "pos_refunds",
  key: "id",
  due: "created_at",
  lockedUntil: "recovery_locked_until",
  order: "created_at, id",
};

/** For the task gauges: a refund is pending until the gateway settles it; the pass never gives up. */
export const staleRefundCensus: TaskCensus = { table: staleRefunds, pending: Prisma.sql`status = 'pending'` };

export function refundRepository(prisma: PrismaClient) {
  return {
    /** What a payment's refunds hold: those made and those sent to the gateway without an answer yet. */
    async held(tx: Tx, payment_id: string) {
      const sum = await tx.posRefund.aggregate({
        where: { payment_id, status: { in: ["pending", "succeeded"] } },
        _sum: { amount: true },
      });
      return sum._sum.amount ?? 0;
    },
    create: (tx: Tx, data: Prisma.PosRefundUncheckedCreateInput) => tx.posRefund.create({ data }),
    find: (id: string) => prisma.posRefund.findUniqueOrThrow({ where: { id } }),

    /** Moves a pending refund by `event`; false when another request settled it first. */
    async settle(
      tx: Tx,
      id: string,
      event: PosRefundEvent,
      data: Omit<Prisma.PosRefundUncheckedUpdateInput, "status">,
    ) {
      const moved = await tx.posRefund.updateMany({
        where: { id, status: { in: posRefundMachine.fromStates(event) } },
        data: { ...data, status: posRefundMachine.target(event).to },
      });
      return moved.count === 1;
    },

    listForPayment: (payment_id: string) =>
      prisma.posRefund.findMany({ where: { payment_id }, orderBy: [{ created_at: "asc" }, { id: "asc" }] }),

    /** Pending refunds of a payment sent before `before`: their request ended without the gateway's answer. */
    stale: (payment_id: string, before: Date) =>
      prisma.posRefund.findMany({ where: { payment_id, status: "pending", created_at: { lt: before } } }),

    /**
     * Takes a lease until `until` on the oldest refund still pending sent before `before` whose lease, if any, ended
     * by `now`: the recovery pass then asks the gateway, and other processes leave the refund alone until the lease
     * ends. Null when none is left.
     */
    async claimStale(before: Date, now: Date, until: Date): Promise<RefundRow | null> {
      const [claimed] = await claimDue<{ id: string }>(onPrisma(prisma), staleRefunds, {
        where: Prisma.sql`status = 'pending' AND created_at < ${before}`,
        now,
        leaseUntil: until,
        limit: 1,
        returning: Prisma.sql`task.id`,
      });
      return claimed ? prisma.posRefund.findUniqueOrThrow({ where: { id: claimed.id } }) : null;
    },

    transaction: <T>(work: (tx: Tx) => Promise<T>) => prisma.$transaction(work, { timeout: 20_000, maxWait: 20_000 }),
  };
}
