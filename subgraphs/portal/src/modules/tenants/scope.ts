import { type Caller, tierOf } from "@pos-cloud/common";
import type { Prisma } from "../../generated/prisma/client";

/**
 * The tenant filter of every list, the data-layer twin of `canReach`: L0 everything, L1 its PSP, L2 its merchant,
 * L3 its area's stores, L4 to L6 (and devices) their one store. A caller outside every rule matches nothing.
 */
// Tenant ids are positive, so -1 matches no row.
const nothing = { id: -1 };

export function pspScope(caller: Caller): Prisma.PspWhereInput {
  const tier = tierOf(caller);
  if (tier === 0) return {};
  if (tier === 1) return { id: caller.pspId ?? -1 };
  return nothing;
}

export function merchantScope(caller: Caller): Prisma.MerchantWhereInput {
  const tier = tierOf(caller);
  if (tier === 0) return {};
  if (tier === 1) return { psp_id: caller.pspId ?? -1 };
  if (tier === 2) return { id: caller.merchantId ?? -1 };
  return nothing;
}

export function storeScope(caller: Caller): Prisma.StoreWhereInput {
  if (caller.type === "device") return { id: caller.storeId ?? -1 };
  const tier = tierOf(caller);
  if (tier === 0) return {};
  if (tier === 1) return { merchant: { psp_id: caller.pspId ?? -1 } };
  if (tier === 2) return { merchant_id: caller.merchantId ?? -1 };
  // An area manager without an area reaches no store (null would match stores outside every area).
  if (tier === 3) return caller.areaId ? { merchant_id: caller.merchantId ?? -1, area_id: caller.areaId } : nothing;
  if (tier !== undefined) return { id: caller.storeId ?? -1, merchant_id: caller.merchantId ?? -1 };
  return nothing;
}

/** Devices not yet bound to a store are visible to L0 only. */
export function deviceScope(caller: Caller): Prisma.DeviceWhereInput {
  if (caller.type === "device") return { id: caller.id ?? "" };
  if (tierOf(caller) === 0) return {};
  if (tierOf(caller) === undefined) return { id: { in: [] } };
  return { store: storeScope(caller) };
}
