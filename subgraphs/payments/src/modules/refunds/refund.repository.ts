import { claimDue, reschedule } from "../../claims";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";
import { refundMachine } from "./refund.machine";

export type RefundRepository = ReturnType<typeof refundRepository>;

export function refundRepository(prisma: PrismaClient) {
  return {
    findIntent: (id: string, client_partner_id: number) =>
      prisma.paymentIntent.findFirst({ where: { id, client_partner_id } }),
    findIntentById: (id: string) => prisma.paymentIntent.findUnique({ where: { id } }),
    /** Claims provider refunds left pending by a call that never came back (a crash, a timeout), due first. */
    async claimPending(now: Date, limit: number) {
      const ids = await claimDue(prisma, "refunds", Prisma.sql`status = 'pending'`, now, limit);
      return prisma.refund.findMany({ where: { id: { in: ids } } });
    },
    /** When the sweep asks again about a refund the provider could not take, after `attempts` tries. */
    retryLater: (id: string, attempts: number, due: Date) => reschedule(prisma, "refunds", id, attempts, due),
    listForIntent: (payment_intent_id: string) =>
      prisma.refund.findMany({ where: { payment_intent_id }, orderBy: { created_at: "asc" } }),
    /** Locks an intent's row for the transaction, so refunds of one intent are checked one after another. */
    lockIntent: (tx: Prisma.TransactionClient, id: string) =>
      tx.$queryRaw`SELECT id FROM payment_intents WHERE id = ${id} FOR UPDATE`,
    intentIn: (tx: Prisma.TransactionClient, id: string) => tx.paymentIntent.findUniqueOrThrow({ where: { id } }),
    partnerIntentIn: (tx: Prisma.TransactionClient, id: string, client_partner_id: number) =>
      tx.paymentIntent.findFirst({ where: { id, client_partner_id } }),
    countForIntent: (tx: Prisma.TransactionClient, payment_intent_id: string) =>
      tx.refund.count({ where: { payment_intent_id } }),
    /** What an intent's refunds hold: those made and those the provider has not answered yet. */
    async held(tx: Prisma.TransactionClient, payment_intent_id: string) {
      const taken = await tx.refund.aggregate({
        where: { payment_intent_id, status: { in: ["pending", "succeeded"] } },
        _sum: { amount: true },
      });
      return taken._sum.amount ?? 0;
    },
    create: (tx: Prisma.TransactionClient, data: Prisma.RefundUncheckedCreateInput) => tx.refund.create({ data }),
    /** Moves a refund by `event` if it is still in a state the event leaves; the refund as it is then, and whether it moved. */
    async settle(
      tx: Prisma.TransactionClient,
      id: string,
      event: "succeed" | "fail",
      data: Omit<Prisma.RefundUncheckedUpdateInput, "status">,
    ) {
      const { count } = await tx.refund.updateMany({
        where: { id, status: { in: refundMachine.fromStates(event) } },
        data: { ...data, status: refundMachine.target(event).to },
      });
      return { moved: count > 0, refund: await tx.refund.findUniqueOrThrow({ where: { id } }) };
    },
    transaction: <T>(work: (tx: Prisma.TransactionClient) => Promise<T>) => prisma.$transaction(work),
  };
}
