import { type Caller, forbidden, invalidField, requireCaller, requireDevice, roles, tierOf } from "@pos-cloud/common";
import { PAYMENT_SCOPE } from "../payments";
import { findReachable, type StoreAccess } from "../stores";
import type { SettlementApprover } from "./settlement.inputs";
import type { SettlementRepository, SettlementRow } from "./settlement.repository";

/** Settlements are a store manager's: users of tier L4 and above; terminals for one, by the manager's staff code. */
export function requireManagerTier(caller: Caller) {
  requireCaller(caller);
  const tier = tierOf(caller);
  if (tier === undefined || tier > roles.STORE_MANAGER)
    throw forbidden("settlements are for store managers (L4) and above");
}

/**
 * Who acts, in which store: a terminal with a store manager's (L4 or above) staff code and PIN, or a user of tier L4
 * and above, alone or naming a manager (themselves, or another with that one's secret). The portal checks and
 * audit-logs the approval (`approveSettlement`).
 */
export async function settlementActor(
  access: StoreAccess,
  caller: Caller,
  storeId: number | undefined,
  approver: SettlementApprover,
  day: { business_date: string; settlement_id?: string },
) {
  if (caller.type === "device") requireDevice(caller, { scope: PAYMENT_SCOPE });
  else requireManagerTier(caller);
  const store = await access.storeFor(caller, storeId, PAYMENT_SCOPE);
  const by = `${caller.type}:${caller.id}`;
  if (caller.type === "device") {
    if (approver.staff_code === undefined)
      throw invalidField("staff_code", "required", "a terminal gives the staff code of a store manager (L4) or above");
    if (!approver.staff_pin)
      throw invalidField("staff_pin", "required", "a terminal gives the store manager's staff_pin with staff_code");
  }
  if (approver.staff_code === undefined) return { store, by, staff_code: null };
  const staff = await access.approveSettlement({
    store_id: store.storeId,
    login_id: approver.staff_code,
    secret: approver.staff_pin ?? null,
    business_date: day.business_date,
    settlement_id: day.settlement_id ?? null,
    caller: by,
  });
  return { store, by, staff_code: staff.login_id };
}

/** A settlement the caller may read: a terminal of its store, or a user of tier L4 and above who reaches it. */
export async function readableSettlement(
  settlements: SettlementRepository,
  access: StoreAccess,
  caller: Caller,
  id: string,
): Promise<SettlementRow> {
  if (caller.type !== "device") requireManagerTier(caller);
  return findReachable(access, caller, "settlement", id, settlements.find);
}
