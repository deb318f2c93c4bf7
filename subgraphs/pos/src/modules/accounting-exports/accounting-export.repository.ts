import { type AuditChange, auditOutboxRow } from "@pos-cloud/common";
import { claimDue, onPrisma, type TaskCensus, type TaskTable } from "@pos-cloud/common/tasks";
import {
  type AccountingExport,
  type AccountingExportDelivery,
  Prisma,
  type PrismaClient,
} from "../../generated/prisma/client";

export type AccountingExportRepository = ReturnType<typeof accountingExportRepository>;
export type AccountingExportRow = AccountingExport;
export type DeliveryRow = AccountingExportDelivery;

/** How many due deliveries one pass takes at a time. */
const BATCH = 20;

/** Pending deliveries are the `accounting_export` tasks. */
const deliveryTasks: TaskTable = {
  kind: "accounting_export",
  table: "pos_accounting_export_deliveries",
  key: "id",
  due: "next_attempt_at",
};

/** For the task gauges: a delivery's fifth failure leaves it `failed`. */
export const exportDeliveryCensus: TaskCensus = {
  table: deliveryTasks,
  pending: Prisma.sql`status = 'pending'`,
  dead: Prisma.sql`status = 'failed'`,
};

export function accountingExportRepository(prisma: PrismaClient) {
  return {
    findSettings: (merchant_id: number) => prisma.accountingExport.findUnique({ where: { merchant_id } }),

    /** The merchant's settings written, with their audit record in the same transaction. */
    saveSettings: (data: Prisma.AccountingExportCreateInput, audit: AuditChange, at: Date) =>
      prisma.$transaction(async (tx) => {
        const { merchant_id: _, ...changes } = data;
        const saved = await tx.accountingExport.upsert({
          where: { merchant_id: data.merchant_id },
          create: data,
          update: changes,
        });
        await tx.outboxEvent.create({ data: auditOutboxRow(audit, at) });
        return saved;
      }),

    /**
     * The host key a first connection showed, pinned on the settings it connected with unless they changed since
     * (a change pins its own key or trusts the next connection's); answers the fingerprint pinned now. The settings'
     * `updated_at` stays that of the merchant's last change.
     */
    async trustHostKey(settings: AccountingExportRow, fingerprint: string, at: Date) {
      const { merchant_id, updated_at } = settings;
      await prisma.accountingExport.updateMany({
        where: { merchant_id, updated_at, host_key_fingerprint: null },
        data: { host_key_fingerprint: fingerprint, host_key_learned_at: at, updated_at },
      });
      const now = await prisma.accountingExport.findUnique({ where: { merchant_id } });
      return now?.host_key_fingerprint ?? null;
    },

    /** A store's day to deliver; nothing when it has one already (one per store and day, whoever asks first). */
    async insertDelivery(data: Prisma.AccountingExportDeliveryCreateManyInput) {
      const { count } = await prisma.accountingExportDelivery.createMany({ data: [data], skipDuplicates: true });
      return count === 1;
    },

    /** A day sent again: its file rebuilt and its attempts started over, due now. */
    resetDelivery: (
      store_id: number,
      business_date: string,
      data: Pick<
        Prisma.AccountingExportDeliveryUncheckedUpdateInput,
        "content" | "file_name" | "format" | "settlement_id" | "next_attempt_at"
      >,
    ) =>
      prisma.accountingExportDelivery.update({
        where: { store_id_business_date: { store_id, business_date } },
        data: { ...data, status: "pending", attempts: 0, last_error: null, delivered_at: null },
      }),

    findDelivery: (store_id: number, business_date: string) =>
      prisma.accountingExportDelivery.findUnique({ where: { store_id_business_date: { store_id, business_date } } }),

    deliveries: (where: Prisma.AccountingExportDeliveryWhereInput) =>
      prisma.accountingExportDelivery.findMany({ where, orderBy: [{ business_date: "desc" }, { store_id: "asc" }] }),

    /**
     * Due deliveries, each taken by one process until `leaseUntil` (rows another process holds are skipped, not
     * waited for): the lease is the row's `next_attempt_at`, so a process that dies mid-attempt leaves it due again.
     */
    claimDue: (now: Date, leaseUntil: Date) =>
      claimDue<DeliveryRow>(onPrisma(prisma), deliveryTasks, {
        where: Prisma.sql`status = 'pending'`,
        now,
        leaseUntil,
        limit: BATCH,
      }),

    markDelivered: (id: string, at: Date) =>
      prisma.accountingExportDelivery.update({
        where: { id },
        data: {
          status: "delivered",
          attempts: { increment: 1 },
          delivered_at: at,
          last_error: null,
          next_attempt_at: null,
        },
      }),

    markRetry: (id: string, error: string, next: Date) =>
      prisma.accountingExportDelivery.update({
        where: { id },
        data: { attempts: { increment: 1 }, last_error: error, next_attempt_at: next },
      }),

    /** The last attempt failed: the delivery is failed, with its audit record in the same transaction. */
    markFailed: (id: string, error: string, audit: AuditChange, at: Date) =>
      prisma.$transaction(async (tx) => {
        await tx.accountingExportDelivery.update({
          where: { id },
          data: { status: "failed", attempts: { increment: 1 }, last_error: error, next_attempt_at: null },
        });
        await tx.outboxEvent.create({ data: auditOutboxRow(audit, at) });
      }),
  };
}
