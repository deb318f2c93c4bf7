import { type Caller, reachOf } from "@pos-cloud/common";
import { Prisma } from "../../generated/prisma/client";

/*
 * The tenant filter of every list: the caller's `reachOf` as a WHERE clause, so a list holds exactly what `canReach`
 * lets the caller read one by one. The anonymous caller is refused (401) by `reachOf`; a caller outside every rule
 * matches nothing.
 */

// Tenant ids are positive, so -1 matches no row.
const nothing = { id: -1 };

/** PSPs: L0 all, L1 its own; lower tiers see none in lists (they walk up from their stores instead). */
export function pspScope(caller: Caller): Prisma.PspWhereInput {
  const reach = reachOf(caller);
  if (reach.level === "platform") return {};
  if (reach.level === "psp") return { id: reach.pspId };
  return nothing;
}

/** Merchants: L0 all, L1 its PSP's, L2 its own; area and store tiers see none in lists. */
export function merchantScope(caller: Caller): Prisma.MerchantWhereInput {
  const reach = reachOf(caller);
  if (reach.level === "platform") return {};
  if (reach.level === "psp") return { psp_id: reach.pspId };
  if (reach.level === "merchant") return { id: reach.merchantId };
  return nothing;
}

export function storeScope(caller: Caller): Prisma.StoreWhereInput {
  const reach = reachOf(caller);
  switch (reach.level) {
    case "platform":
      return {};
    case "psp":
      return { merchant: { psp_id: reach.pspId } };
    case "merchant":
      return { merchant_id: reach.merchantId };
    case "area":
      return { merchant_id: reach.merchantId, area_id: reach.areaId };
    case "store":
      return reach.merchantId === undefined
        ? { id: reach.storeId }
        : { id: reach.storeId, merchant_id: reach.merchantId };
    case "nothing":
      return nothing;
  }
}

/**
 * `storeScope` as SQL over `stores s JOIN merchants m`, for the reads that go to the driver: the same rule, the
 * caller's `reachOf`, so a nested list holds what the Prisma-filtered list holds.
 */
export function storeScopeSql(caller: Caller): Prisma.Sql {
  const reach = reachOf(caller);
  switch (reach.level) {
    case "platform":
      return Prisma.sql`TRUE`;
    case "psp":
      return Prisma.sql`m.psp_id = ${reach.pspId}`;
    case "merchant":
      return Prisma.sql`s.merchant_id = ${reach.merchantId}`;
    case "area":
      return Prisma.sql`s.merchant_id = ${reach.merchantId} AND s.area_id::text = ${reach.areaId}`;
    case "store":
      return reach.merchantId === undefined
        ? Prisma.sql`s.id = ${reach.storeId}`
        : Prisma.sql`s.id = ${reach.storeId} AND s.merchant_id = ${reach.merchantId}`;
    case "nothing":
      return Prisma.sql`FALSE`;
  }
}

/** Devices: those of the stores in reach; a device sees itself; devices not yet bound to a store, L0 only. */
export function deviceScope(caller: Caller): Prisma.DeviceWhereInput {
  const reach = reachOf(caller);
  if (caller.type === "device") return { id: caller.id ?? "" };
  if (reach.level === "platform") return {};
  if (reach.level === "nothing") return { id: { in: [] } };
  return { store: storeScope(caller) };
}

/**
 * Audit records, by where their target sat when they were written: L0 all, L1 its PSP's, L2 its merchant's, L3 the
 * stores of its area (`areaStores`, as they are now), L4 its store's. Records without a place are the platform's (L0).
 */
export function auditScope(caller: Caller, areaStores: number[]): Prisma.AuditLogWhereInput {
  const reach = reachOf(caller);
  switch (reach.level) {
    case "platform":
      return {};
    case "psp":
      return { psp_id: reach.pspId };
    case "merchant":
      return { merchant_id: reach.merchantId };
    case "area":
      return { merchant_id: reach.merchantId, store_id: { in: areaStores } };
    case "store":
      return { store_id: reach.storeId, ...(reach.merchantId === undefined ? {} : { merchant_id: reach.merchantId }) };
    case "nothing":
      return { seq: -1n };
  }
}
