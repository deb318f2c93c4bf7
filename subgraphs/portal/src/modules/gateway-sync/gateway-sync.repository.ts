import { claimDue, onPrisma, type TaskCensus, type TaskTable } from "@pos-cloud/common/tasks";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";
import { owedAgain } from "./sync-outbox.repository";

export type GatewaySyncRepository = ReturnType<typeof gatewaySyncRepository>;

const merchantWithStores = {
  select: {
    id: true,
    code: true,
    psp_id: true,
    status: true,
    provider_credentials: true,
    payment_config: true,
    updated_at: true,
    stores: {
      select: {
        id: true,
        code: true,
        status: true,
        provider_credentials: true,
        payment_config: true,
        updated_at: true,
      },
      orderBy: { id: "asc" },
    },
  },
} as const;

/** Every row is a `gateway_sync` task; a claim is held in `locked_until`, so `next_attempt_at` stays the row's. */
const syncTasks: TaskTable = {
  kind: "gateway_sync",
  table: "gateway_sync_outbox",
  key: "merchant_id",
  due: "next_attempt_at",
  lockedUntil: "locked_until",
};

/** For the task gauges: every row is a push still to make; a push never gives up. */
export const syncCensus: TaskCensus = { table: syncTasks, pending: Prisma.sql`TRUE` };

/** A claimed row: the merchant to push, and the version of its configuration the push stands for. */
export interface ClaimedSync {
  merchant_id: number;
  version: number;
  attempts: number;
}

export function gatewaySyncRepository(prisma: PrismaClient) {
  return {
    merchants: (ids?: number[]) =>
      prisma.merchant.findMany({
        where: ids ? { id: { in: ids } } : {},
        orderBy: { id: "asc" },
        ...merchantWithStores,
      }),
    /** Every merchant owes a push (the full sync): the gateway's lease on every store is renewed. */
    enqueueAll: (now: Date) =>
      prisma.$executeRaw`INSERT INTO gateway_sync_outbox (merchant_id, next_attempt_at, created_at)
        SELECT id, ${now}, ${now} FROM merchants
        ON CONFLICT (merchant_id) DO UPDATE SET ${owedAgain(now)}`,
    /**
     * Claims up to `limit` due merchants until `lockedUntil`, oldest due first: the lock column keeps them from every
     * other worker until the push is done or the claim runs out (the worker died), so two pushes of one merchant
     * never cross.
     */
    claim: (now: Date, lockedUntil: Date, limit: number) =>
      claimDue<ClaimedSync>(onPrisma(prisma), syncTasks, {
        where: Prisma.sql`TRUE`,
        now,
        leaseUntil: lockedUntil,
        limit,
        returning: Prisma.sql`task.merchant_id, task.version, task.attempts`,
      }),
    /** The gateway has `version` (or refused it for good): the row goes, unless a change came after that version. */
    async done(row: ClaimedSync) {
      await prisma.$executeRaw`DELETE FROM gateway_sync_outbox
        WHERE merchant_id = ${row.merchant_id} AND version = ${row.version}`;
      await prisma.$executeRaw`UPDATE gateway_sync_outbox SET locked_until = NULL WHERE merchant_id = ${row.merchant_id}`;
    },
    /** A failed push is tried again at `next`, unless a change came meanwhile, which is due at once. */
    async failed(row: ClaimedSync, next: Date, error: string) {
      await prisma.$executeRaw`UPDATE gateway_sync_outbox
        SET attempts = ${row.attempts + 1}, next_attempt_at = ${next}, last_error = ${error}
        WHERE merchant_id = ${row.merchant_id} AND version = ${row.version}`;
      await prisma.$executeRaw`UPDATE gateway_sync_outbox SET locked_until = NULL WHERE merchant_id = ${row.merchant_id}`;
    },
  };
}
