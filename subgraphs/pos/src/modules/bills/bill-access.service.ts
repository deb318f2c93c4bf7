import { type Caller, requireDevice } from "@pos-cloud/common";
import { findReachable, type StoreAccess } from "../stores";
import type { BillRepository, BillRow } from "./bill.repository";

/** The device token scope that lets a terminal make, split, combine and cancel bills. */
export const BILL_SCOPE = "bill:create";

/** A bill of a store the caller reaches; any other id is not found. */
export async function readableBill(
  bills: BillRepository,
  access: StoreAccess,
  caller: Caller,
  id: string,
): Promise<BillRow> {
  return findReachable(access, caller, "bill", id, bills.find);
}

/** A bill the caller may change: a device needs the bill scope on its token. */
export async function writableBill(bills: BillRepository, access: StoreAccess, caller: Caller, id: string) {
  if (caller.type === "device") requireDevice(caller, { scope: BILL_SCOPE });
  return readableBill(bills, access, caller, id);
}
