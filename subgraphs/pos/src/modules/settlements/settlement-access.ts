import {
  AppError,
  type Caller,
  forbidden,
  invalidField,
  isRole,
  requireCaller,
  requireDevice,
  roles,
  tierOf,
} from "@pos-cloud/common";
import { PAYMENT_SCOPE } from "../payments/payment.service";
import { findReachable, type StoreAccess, type StorePlace } from "../stores/store-access.service";
import type { SettlementRepository, SettlementRow } from "./settlement.repository";

/** Settlements are a store manager's: users of tier L4 and above; terminals for one, by the manager's staff code. */
export function requireManagerTier(caller: Caller) {
  requireCaller(caller);
  const tier = tierOf(caller);
  if (tier === undefined || tier > roles.STORE_MANAGER)
    throw forbidden("settlements are for store managers (L4) and above");
}

/** A staff code of the store's manager or above (L4), else 400 (not staff of the store) or 403 (below L4). */
async function requireManagerCode(access: StoreAccess, store: StorePlace, staffCode: string) {
  const staff = await access.staffMember(store, staffCode);
  if (!isRole(staff.role) || roles[staff.role] > roles.STORE_MANAGER)
    throw new AppError("forbidden", "a settlement needs the staff code of a store manager (L4) or above", {
      field: "staff_code",
      constraint: "store_manager",
    });
  return staff.login_id;
}

/** Who acts, in which store: a terminal with a manager's staff code, or a user of tier L4 and above. */
export async function settlementActor(
  access: StoreAccess,
  caller: Caller,
  storeId: number | undefined,
  staffCode: string | undefined,
) {
  if (caller.type === "device") {
    requireDevice(caller, { scope: PAYMENT_SCOPE });
    const store = await access.storeFor(caller, storeId, PAYMENT_SCOPE);
    if (staffCode === undefined)
      throw invalidField("staff_code", "required", "a terminal gives the staff code of a store manager (L4) or above");
    return { store, by: `device:${caller.id}`, staff_code: await requireManagerCode(access, store, staffCode) };
  }
  requireManagerTier(caller);
  const store = await access.storeFor(caller, storeId, PAYMENT_SCOPE);
  const staff_code = staffCode === undefined ? null : await requireManagerCode(access, store, staffCode);
  return { store, by: `user:${caller.id}`, staff_code };
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
