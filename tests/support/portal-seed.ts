import type { Caller, Role } from "@pos-cloud/common";
import type { PortalDeps } from "../../subgraphs/portal/src/context";
import { uniqueCode } from "./environment";

export const operator: Caller = { type: "user", id: "op", role: "SYSTEM_OP", scopes: [] };

/** A human caller of a role at a place in the hierarchy, as the edge builds it from a token. */
export function human(role: Role, at: { pspId?: number; merchantId?: number; storeId?: number; areaId?: string }) {
  return { type: "user", id: `${role}-${uniqueCode("u")}`, role, scopes: [], ...at } satisfies Caller;
}

export type Branch = Awaited<ReturnType<typeof seedBranch>>;

/** A PSP with one merchant and two stores, all with fresh codes. */
export async function seedBranch(portal: PortalDeps) {
  const psp = await portal.tenants.createPsp(operator, { code: uniqueCode("PSP"), name: "PSP" });
  const merchant = await portal.tenants.createMerchant(operator, {
    psp_id: psp.id,
    code: uniqueCode("M"),
    name: "Merchant",
  });
  const store = await portal.tenants.createStore(operator, {
    merchant_id: merchant.id,
    code: uniqueCode("S"),
    name: "Store",
  });
  const otherStore = await portal.tenants.createStore(operator, {
    merchant_id: merchant.id,
    code: uniqueCode("S"),
    name: "Other store",
  });
  const at = { pspId: psp.id, merchantId: merchant.id, storeId: store.id };
  return {
    psp,
    merchant,
    store,
    otherStore,
    /** One caller per tier placed in this branch's first store (L3 has no area here). */
    callers: {
      L0: operator,
      L1: human("PSP_ADMIN", { pspId: psp.id }),
      L2: human("MERCHANT_ADMIN", { pspId: psp.id, merchantId: merchant.id }),
      L4: human("STORE_MANAGER", at),
      L5: human("STAFF_LEADER", at),
      L6: human("STAFF", at),
    },
  };
}
