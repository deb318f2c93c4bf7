import { type AuditChange, auditOutboxRow, newUlid, type ResolutionWrite } from "@pos-cloud/common";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import type { LedgerPayment, ProviderDifference } from "./provider-differences.rules";

export type ReconciliationRepository = ReturnType<typeof reconciliationRepository>;

/** A difference as recorded, with where and when it was found. */
export interface RecordedDifference extends ProviderDifference {
  provider: string;
  business_date: string;
  merchant_id: number;
  store_id: number;
}

export function reconciliationRepository(prisma: PrismaClient) {
  return {
    /** The provider's payments of intents created in [start, end), each with its succeeded refunds summed. */
    async dayPayments(provider: string, start: Date, end: Date): Promise<LedgerPayment[]> {
      const intents = await prisma.paymentIntent.findMany({
        where: { provider_name: provider, provider_transaction_id: { not: null }, created_at: { gte: start, lt: end } },
        select: {
          id: true,
          merchant_id: true,
          store_id: true,
          provider_transaction_id: true,
          status: true,
          amount: true,
        },
        orderBy: { created_at: "asc" },
      });
      const refunds = await prisma.refund.groupBy({
        by: ["payment_intent_id"],
        where: { payment_intent_id: { in: intents.map((intent) => intent.id) }, status: "succeeded" },
        _sum: { amount: true },
      });
      const refunded = new Map(refunds.map((row) => [row.payment_intent_id, row._sum.amount ?? 0]));
      return intents.map(({ id, provider_transaction_id, ...intent }) => ({
        ...intent,
        payment_intent_id: id,
        provider_transaction_id: provider_transaction_id!,
        refunded_amount: refunded.get(id) ?? 0,
      }));
    },

    /** Which of these provider transaction ids the gateway made: an intent's, or a confirm attempt's. */
    async knownTransactions(ids: string[]): Promise<Set<string>> {
      const where = { provider_transaction_id: { in: ids } };
      const select = { provider_transaction_id: true };
      const [intents, attempts] = await Promise.all([
        prisma.paymentIntent.findMany({ where, select }),
        prisma.confirmAttempt.findMany({ where, select }),
      ]);
      return new Set([...intents, ...attempts].map((row) => row.provider_transaction_id!));
    },

    /** Records a difference unless one of the same payment and field is recorded already; whether it is new. */
    async record(difference: RecordedDifference, at: Date): Promise<boolean> {
      const { count } = await prisma.providerDifference.createMany({
        data: [{ id: `pdf_${newUlid(at.getTime())}`, ...difference, detected_at: at }],
        skipDuplicates: true,
      });
      return count === 1;
    },

    find: (id: string) => prisma.providerDifference.findUnique({ where: { id } }),

    /**
     * Closes a difference no one resolved yet, with its audit record in the same transaction; null when it was
     * resolved already.
     */
    resolve: (id: string, resolution: ResolutionWrite, audit: AuditChange) =>
      prisma.$transaction(async (tx) => {
        const { count } = await tx.providerDifference.updateMany({
          where: { id, resolved_at: null },
          data: resolution,
        });
        if (count === 0) return null;
        await tx.outboxEvent.create({ data: auditOutboxRow(audit, resolution.resolved_at) });
        return tx.providerDifference.findUniqueOrThrow({ where: { id } });
      }),

    /** How many differences were recorded where `where` says. */
    count: (where: Prisma.ProviderDifferenceWhereInput) => prisma.providerDifference.count({ where }),

    /** A store's differences found for a business day, in the order they were found. */
    listForStore: (store_id: number, business_date: string) =>
      prisma.providerDifference.findMany({ where: { store_id, business_date }, orderBy: { id: "asc" } }),
  };
}
