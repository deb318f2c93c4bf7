import { type Caller, readPage } from "@pos-cloud/common";
import type { SqlRunner } from "@pos-cloud/common/storage";
import type { Clock } from "../../clock";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";
import { run, uniqueCode } from "../../sql";
import type { Page } from "../../validation";
import { enqueueGatewaySync } from "../gateway-sync/sync-outbox.repository";
import { endsSessions, revokeSessions } from "../revocations/session-revocations.repository";
import { merchantScope, pspScope, storeScope, storeScopeSql } from "./tenant-scope.rules";

export type TenantRepository = ReturnType<typeof tenantRepository>;
export type PspRow = Prisma.PspGetPayload<object>;
export type MerchantRow = Prisma.MerchantGetPayload<object>;
const withPsp = { merchant: { select: { psp_id: true, terminal_limit_per_store: true } } } as const;
export type StoreRow = Prisma.StoreGetPayload<{ include: typeof withPsp }>;

/**
 * A store as a nested list reads it: its keys, and of the other columns those of the fields asked. Whether
 * credentials are set, never the sealed blob.
 */
export type StoreListRow = Pick<StoreRow, "id" | "merchant_id"> &
  Partial<Omit<StoreRow, "provider_credentials" | "merchant"> & { has_provider_credentials: boolean }>;

/** The column each Store field of a nested list reads; fields not here (merchant, devices, staff) need the keys. */
const storeListColumns: Record<string, string> = {
  code: "s.code",
  name: "s.name",
  address: "s.address",
  contact_email: "s.contact_email",
  contact_phone: "s.contact_phone",
  latitude: "s.latitude",
  longitude: "s.longitude",
  operating_hours: "s.operating_hours",
  payment_config: "s.payment_config",
  printer_config: "s.printer_config",
  receipt_settings: "s.receipt_settings",
  // Prisma reads a NULL list as empty; so do these.
  enabled_payment_methods: "coalesce(s.enabled_payment_methods, '{}') AS enabled_payment_methods",
  has_provider_credentials: "s.provider_credentials IS NOT NULL AS has_provider_credentials",
  receipt_delivery: "coalesce(s.receipt_delivery, '{}') AS receipt_delivery",
  tax_rate: "s.tax_rate",
  table_assignments: "coalesce(s.table_assignments, '{}') AS table_assignments",
  status: "s.status",
  area_id: "s.area_id",
  created_at: "s.created_at",
  updated_at: "s.updated_at",
  psp_id: "m.psp_id",
};

type Merchantship = StoreRow["merchant"];
/** Every column of a `StoreRow`, as Prisma reads it, and its merchant's. */
const storeRowColumns = [
  "s.id",
  "s.merchant_id",
  "s.provider_credentials",
  ...Object.entries(storeListColumns)
    .filter(([field]) => field !== "psp_id" && field !== "has_provider_credentials")
    .map(([, column]) => column),
  "m.psp_id",
  "m.terminal_limit_per_store",
].join(", ");

/** A merchant or store write together with the gateway push it owes its merchant. */
const synced = <T>(
  prisma: PrismaClient,
  clock: Clock,
  write: (tx: Prisma.TransactionClient) => Promise<T>,
  merchantOf: (row: T) => number,
) =>
  prisma.$transaction(async (tx) => {
    const row = await write(tx);
    await enqueueGatewaySync(tx, merchantOf(row), clock());
    return row;
  });

function pspRows(prisma: PrismaClient) {
  return {
    listPsps: (caller: Caller, page: Page) =>
      readPage(page, {
        rows: (take) =>
          prisma.psp.findMany({ where: pspScope(caller), orderBy: { id: "asc" }, take, skip: page.offset }),
        total: () => prisma.psp.count({ where: pspScope(caller) }),
      }),
    pspsByIds: (ids: readonly number[]) => prisma.psp.findMany({ where: { id: { in: [...ids] } } }),
    findPsp: (id: number) => prisma.psp.findUnique({ where: { id } }),
    createPsp: (data: Prisma.PspCreateInput) => uniqueCode(prisma.psp.create({ data })),
  };
}

function merchantRows(prisma: PrismaClient, clock: Clock) {
  return {
    listMerchants(caller: Caller, filter: { psp_id?: number }, page: Page) {
      const where = { AND: [merchantScope(caller), filter] };
      return readPage(page, {
        rows: (take) => prisma.merchant.findMany({ where, orderBy: { id: "asc" }, take, skip: page.offset }),
        total: () => prisma.merchant.count({ where }),
      });
    },
    merchantsOfPsps: (caller: Caller, pspIds: readonly number[]) =>
      prisma.merchant.findMany({
        where: { AND: [merchantScope(caller), { psp_id: { in: [...pspIds] } }] },
        orderBy: { id: "asc" },
      }),
    /** Every merchant id of a PSP, unpaginated (an L1's reach). */
    merchantIdsOfPsp: async (psp_id: number) =>
      (await prisma.merchant.findMany({ where: { psp_id }, select: { id: true } })).map((row) => row.id),
    merchants: (ids: readonly number[]) => prisma.merchant.findMany({ where: { id: { in: [...ids] } } }),
    findMerchant: (id: number) => prisma.merchant.findUnique({ where: { id } }),
    createMerchant: (data: Prisma.MerchantUncheckedCreateInput) =>
      uniqueCode(
        synced(
          prisma,
          clock,
          (tx) => tx.merchant.create({ data }),
          (merchant) => merchant.id,
        ),
      ),
    updateMerchant: (id: number, data: Prisma.MerchantUncheckedUpdateInput) =>
      uniqueCode(
        synced(
          prisma,
          clock,
          async (tx) => {
            // A merchant that leaves active ends its terminals' tokens (the edge matches their merchant_id).
            if (endsSessions(data)) await revokeSessions(tx, `merchant:${id}`, clock());
            return tx.merchant.update({ where: { id }, data });
          },
          (merchant) => merchant.id,
        ),
      ),
  };
}

function storeRows(prisma: PrismaClient, db: SqlRunner, clock: Clock) {
  return {
    listStores(caller: Caller, filter: { merchant_id?: number }, page: Page) {
      const where = { AND: [storeScope(caller), filter] };
      return readPage(page, {
        rows: (take) =>
          prisma.store.findMany({ where, include: withPsp, orderBy: { id: "asc" }, take, skip: page.offset }),
        total: () => prisma.store.count({ where }),
      });
    },
    /** The stores of many merchants, reading the keys and the columns of the Store fields asked (`fields`). */
    async storesOfMerchants(caller: Caller, merchantIds: readonly number[], fields: readonly string[]) {
      const columns = ["s.id", "s.merchant_id", ...fields.flatMap((field) => storeListColumns[field] ?? [])];
      const rows = await run<StoreListRow & { psp_id: number }>(
        db,
        Prisma.sql`SELECT ${Prisma.raw(columns.join(", "))}
        FROM stores s JOIN merchants m ON m.id = s.merchant_id
        WHERE s.merchant_id = ANY(${[...merchantIds]}::int[]) AND ${storeScopeSql(caller)}
        ORDER BY s.id`,
      );
      // `Store.psp_id` reads the merchant's, as the other reads of a store carry it.
      return fields.includes("psp_id") ? rows.map((row) => ({ ...row, merchant: { psp_id: row.psp_id } })) : rows;
    },
    storesOfAreas: (caller: Caller, areaIds: readonly string[]) =>
      prisma.store.findMany({
        where: { AND: [storeScope(caller), { area_id: { in: [...areaIds] } }] },
        include: withPsp,
        orderBy: { id: "asc" },
      }),
    stores: (ids: readonly number[]) => prisma.store.findMany({ where: { id: { in: [...ids] } }, include: withPsp }),
    /**
     * One store with its merchant's place and terminal limit, in one statement on the driver: Prisma's client read
     * the merchant with a second statement, and each statement's own cost in the client and in PGlite's protocol
     * handling was most of a single-store read (docs/benchmarks.md, "The one-store read").
     */
    async findStore(id: number): Promise<StoreRow | null> {
      const [row] = await run<Omit<StoreRow, "merchant"> & Merchantship>(
        db,
        Prisma.sql`SELECT ${Prisma.raw(storeRowColumns)}
        FROM stores s JOIN merchants m ON m.id = s.merchant_id WHERE s.id = ${id}`,
      );
      if (!row) return null;
      const { psp_id, terminal_limit_per_store, ...store } = row;
      return { ...store, merchant: { psp_id, terminal_limit_per_store } };
    },
    createStore: (data: Prisma.StoreUncheckedCreateInput) =>
      uniqueCode(
        synced(
          prisma,
          clock,
          (tx) => tx.store.create({ data, include: withPsp }),
          (store) => store.merchant_id,
        ),
      ),
    updateStore: (id: number, data: Prisma.StoreUncheckedUpdateInput) =>
      uniqueCode(
        synced(
          prisma,
          clock,
          async (tx) => {
            // A store that leaves active ends its terminals' tokens (the edge matches their store_id).
            if (endsSessions(data)) await revokeSessions(tx, `store:${id}`, clock());
            return tx.store.update({ where: { id }, data, include: withPsp });
          },
          (store) => store.merchant_id,
        ),
      ),
  };
}

/**
 * Every read is filtered by the caller's tenant scope; rows outside it do not exist for the caller. The nested lists
 * of a hierarchy read (hundreds of stores per request) go to the driver with one statement and only the columns
 * of the fields asked: through Prisma's client, reading the sealed blobs and a second statement for the merchant,
 * they cost several times the database's own work, and parsing columns nobody asked for was the largest cost of a
 * request (docs/benchmarks.md, "Hierarchy read").
 */
export function tenantRepository(prisma: PrismaClient, db: SqlRunner, clock: Clock) {
  return { ...pspRows(prisma), ...merchantRows(prisma, clock), ...storeRows(prisma, db, clock) };
}
