import type { PosRefund, Prisma, PrismaClient } from "../../generated/prisma/client";
import { type PosRefundEvent, posRefundMachine } from "./refund.machine";

export type RefundRepository = ReturnType<typeof refundRepository>;
export type Tx = Prisma.TransactionClient;
export type RefundRow = PosRefund;

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

    /** The oldest pending refunds sent before `before`, across payments: what the recovery pass asks about again. */
    staleAll: (before: Date, take: number) =>
      prisma.posRefund.findMany({
        where: { status: "pending", created_at: { lt: before } },
        orderBy: [{ created_at: "asc" }, { id: "asc" }],
        take,
      }),

    transaction: <T>(work: (tx: Tx) => Promise<T>) => prisma.$transaction(work, { timeout: 20_000, maxWait: 20_000 }),
  };
}
