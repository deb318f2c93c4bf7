import { type Caller, isUuid, reachOf, readPage } from "@pos-cloud/common";
import type { SqlRunner } from "@pos-cloud/common/storage";
import type { AuditStep } from "../../audit-sink";
import type { Clock } from "../../clock";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";
import { run } from "../../sql";
import type { Page } from "../../validation";
import { endsSessions, revokeSessions } from "../revocations/session-revocations.repository";
import { deviceScope, storeScopeSql } from "../tenants";

export type DeviceRepository = ReturnType<typeof deviceRepository>;
const withTenant = {
  store: {
    select: {
      area_id: true,
      status: true,
      merchant: { select: { psp_id: true, terminal_limit_per_store: true, status: true } },
    },
  },
};
export type DeviceRow = Prisma.DeviceGetPayload<{ include: typeof withTenant }>;

/** Devices that count against a store's terminal limit: all but decommissioned ones. */
const occupying = { status: { not: "decommissioned" } };

/** A device as a nested list reads it: its keys, and of the other columns those of the fields asked. */
export type DeviceListRow = Pick<DeviceRow, "id"> & { store_id: number } & Partial<Omit<DeviceRow, "store">>;

/** The Device fields a nested list reads as columns of the same name; `store` needs the key `store_id`. */
const deviceListColumns = new Set([
  "serial_number",
  "client_id",
  "merchant_id",
  "public_key_jwk",
  "status",
  "model",
  "manufacturer",
  "activated_at",
  "last_connected_at",
  "battery_level",
  "paper_status",
  "latitude",
  "longitude",
  "config",
  "created_at",
  "updated_at",
]);

/** `deviceScope` as SQL over `devices d JOIN stores s JOIN merchants m`, for the reads that go to the driver. */
function deviceScopeSql(caller: Caller): Prisma.Sql {
  const reach = reachOf(caller);
  if (caller.type === "device") return Prisma.sql`d.id::text = ${caller.id ?? ""}`;
  if (reach.level === "platform") return Prisma.sql`TRUE`;
  return storeScopeSql(caller);
}

export function deviceRepository(prisma: PrismaClient, db: SqlRunner, clock: Clock) {
  return {
    list(caller: Caller, filter: { store_id?: number; status?: string }, page: Page) {
      const where = { AND: [deviceScope(caller), filter] };
      return readPage(page, {
        rows: (take) =>
          prisma.device.findMany({
            where,
            include: withTenant,
            orderBy: [{ created_at: "asc" }, { id: "asc" }],
            take,
            skip: page.offset,
          }),
        total: () => prisma.device.count({ where }),
      });
    },
    /**
     * The devices of many stores (a hierarchy read's `stores { devices }`) in one statement on the driver, reading
     * the keys and the columns of the Device fields asked (`fields`): through Prisma's client, with the relation
     * include its scope needed, they cost several times the database's own work.
     * The ids are joined as a table: `store_id = ANY(ids)` beside the join's own equality made each store's index
     * search compare against the whole array (25 ms for 400 stores).
     */
    ofStores: (caller: Caller, storeIds: readonly number[], fields: readonly string[]) =>
      run<DeviceListRow>(
        db,
        Prisma.sql`SELECT ${Prisma.raw(
          ["id", "store_id", ...fields.filter((field) => deviceListColumns.has(field))].map((c) => `d.${c}`).join(", "),
        )}
        FROM unnest(${[...storeIds]}::int[]) AS wanted(store_id) JOIN devices d ON d.store_id = wanted.store_id
          JOIN stores s ON s.id = d.store_id JOIN merchants m ON m.id = s.merchant_id
        WHERE ${deviceScopeSql(caller)}
        ORDER BY d.created_at, d.id`,
      ),
    /** Ids that are not UUIDs name no device (and would fail the whole statement). */
    byIds: (ids: string[]) =>
      prisma.device.findMany({ where: { id: { in: ids.filter(isUuid) } }, include: withTenant }),
    find: (id: string) => prisma.device.findUnique({ where: { id }, include: withTenant }),
    findBySerial: (serial_number: string) =>
      prisma.device.findUnique({ where: { serial_number }, include: withTenant }),
    findByClientId: (client_id: string) => prisma.device.findUnique({ where: { client_id }, include: withTenant }),
    /** Creates a device and, in the same transaction, its audit record (`audit` takes the new device's id). */
    create: (data: Prisma.DeviceUncheckedCreateInput, audit?: (id: string) => AuditStep) =>
      prisma.$transaction(async (tx) => {
        const device = await tx.device.create({ data, include: withTenant });
        await audit?.(device.id)(tx);
        return device;
      }),
    /**
     * Writes only if the device is still in one of `from`; null when another request moved it first. A device that
     * leaves active (suspended, decommissioned) loses its tokens in the same transaction, and the move's audit record
     * is written in it.
     */
    async move(id: string, from: string[], data: Prisma.DeviceUncheckedUpdateInput, audit?: AuditStep) {
      const moved = await prisma.$transaction(async (tx) => {
        const { count } = await tx.device.updateMany({ where: { id, status: { in: from } }, data });
        if (count !== 1) return false;
        if (endsSessions(data)) await revokeSessions(tx, `device:${id}`, clock());
        await audit?.(tx);
        return true;
      });
      return moved ? prisma.device.findUniqueOrThrow({ where: { id }, include: withTenant }) : null;
    },
    update: (id: string, data: Prisma.DeviceUncheckedUpdateInput, audit?: AuditStep) =>
      prisma.$transaction(async (tx) => {
        const device = await tx.device.update({ where: { id }, data, include: withTenant });
        await audit?.(tx);
        return device;
      }),
    countInStore: (store_id: number, exceptId?: string) =>
      prisma.device.count({ where: { store_id, ...occupying, ...(exceptId ? { id: { not: exceptId } } : {}) } }),
  };
}
