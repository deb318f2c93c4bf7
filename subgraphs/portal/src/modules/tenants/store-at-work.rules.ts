import { AppError } from "@pos-cloud/common";

/** A store as far as who works for it is concerned: its status and its merchant's. */
export interface StoreAtWork {
  status: string;
  merchant: { status: string };
}

/**
 * Why nobody works for a store now (its terminals get no token, its staff no session): the store, or its merchant,
 * is inactive. Null while both are active. One rule for device tokens and human sessions, so a deactivated store's
 * staff are refused exactly where its terminals are.
 */
export function storeClosedReason(store: StoreAtWork | null): string | null {
  if (store?.status !== "active") return "store is inactive";
  if (store.merchant.status !== "active") return "merchant is inactive";
  return null;
}

/** The 403 a person of a closed store gets instead of a session, naming the store (`storeClosedReason`). */
export const storeClosed = (storeId: number, reason: string) =>
  new AppError("forbidden", `the user's ${reason} (store ${storeId}): its staff cannot log in`, {
    field: "store_id",
    constraint: "store_active",
    store_id: storeId,
  });
