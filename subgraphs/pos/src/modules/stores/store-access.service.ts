import {
  AppError,
  type Caller,
  forbidden,
  invalidField,
  isUuid,
  notFound,
  type ReachableStore,
  reachOf,
  requireCaller,
  requireDevice,
  roles,
  tierOf,
} from "@pos-cloud/common";
import type { ListScope } from "../../list-scope";
import { customerAccess } from "./customer-access.service";
import { type PosReceiptIssuerQuery, PosStoreDocument } from "./operations/portal.generated";
import { askPortal, type PortalCall } from "./portal.client";
import { portalLookups } from "./portal-lookups.service";
import { storeScopes } from "./store-scope.service";

export type StoreAccess = ReturnType<typeof storeAccess>;

/** A row that belongs to a store: what `requireRow` checks. */
type StoreRow = { store_id: number; merchant_id: number };

/** A row by its id, or null; an id that is not a UUID is not looked for. */
async function findById<Row>(id: string, find: (id: string) => Promise<Row | null>): Promise<Row | null> {
  return isUuid(id) ? find(id) : null;
}

/**
 * A row of a store already checked against the caller (`Store.bill`, `Store.order`, ...), under the store's merchant;
 * any other id is not found.
 */
export async function findInStore<Row extends StoreRow>(
  store: ReachableStore,
  what: string,
  id: string,
  find: (id: string) => Promise<Row | null>,
): Promise<Row> {
  const row = await findById(id, find);
  if (!row || row.store_id !== store.id || row.merchant_id !== store.merchantId) throw notFound(what);
  return row;
}

/** A row of a store the caller reaches; any other id is not found. */
export async function findReachable<Row extends StoreRow>(
  access: StoreAccess,
  caller: Caller,
  what: string,
  id: string,
  find: (id: string) => Promise<Row | null>,
): Promise<Row> {
  const row = await findById(id, find);
  if (!row) throw notFound(what);
  await access.requireRow(caller, row, what);
  return row;
}

/** The refusal of a payment in an inactive store, from the POS or from the gateway (`gateway.client`). */
export const storeInactive = (storeId?: number) =>
  new AppError(
    "invalid_state",
    `the store${storeId === undefined ? "" : ` ${storeId}`} is inactive: it takes no payments`,
    {
      field: "store_id",
      constraint: "store_active",
      ...(storeId === undefined ? {} : { store_id: storeId }),
    },
  );

/** A store a caller acts in, with the merchant the portal placed it under. */
export interface StorePlace {
  storeId: number;
  merchantId: number;
}

/** What the portal holds about a store's receipts' issuer (`receiptIssuer`). */
export type ReceiptIssuerRecord = NonNullable<PosReceiptIssuerQuery["receiptIssuer"]>;

/** A store as the portal shows it to this user; 404 when the user does not reach it. */
async function userPlace(
  portal: PortalCall,
  caller: Caller,
  storeId: number,
  what: string,
): Promise<StorePlace & { active: boolean }> {
  try {
    const { store } = await askPortal(portal, PosStoreDocument, { id: storeId }, caller);
    return { storeId: store.id, merchantId: store.merchant_id, active: store.status === "active" };
  } catch (error) {
    if (error instanceof AppError && (error.code === "forbidden" || error.code === "not_found")) throw notFound(what);
    throw error;
  }
}

/**
 * Who may act in which store. Devices act in the store of their token, with the scope the action needs. Humans
 * (L0 to L6) act in stores they reach: the portal answers `store(id)` for them, so its rules decide, and POS rows
 * of a store they do not reach are not found (404), like a row that does not exist.
 */
export function storeAccess(portal: PortalCall) {
  const placeForUser = (caller: Caller, storeId: number, what: string) => userPlace(portal, caller, storeId, what);

  function deviceStore(caller: Caller): StorePlace {
    if (caller.storeId === undefined || caller.merchantId === undefined) throw forbidden("the device has no store");
    return { storeId: caller.storeId, merchantId: caller.merchantId };
  }

  const access = {
    /**
     * The store a caller acts in for a write: a device's own (with `scope` on its token); a user's the one named, or
     * its own store when it has one. Another store's id from a device is refused.
     */
    async storeFor(caller: Caller, storeId: number | undefined, scope: string): Promise<StorePlace> {
      requireCaller(caller);
      if (caller.type === "device") {
        requireDevice(caller, { scope });
        const own = deviceStore(caller);
        if (storeId !== undefined && storeId !== own.storeId)
          throw new AppError("forbidden", "a device acts in its own store only", { field: "store_id" });
        return own;
      }
      const tier = tierOf(caller);
      if (tier === undefined || tier > roles.STAFF) throw forbidden("log in as a user or a device");
      const id = storeId ?? caller.storeId;
      if (id === undefined) throw invalidField("store_id", "required", "store_id is required");
      return placeForUser(caller, id, "store");
    },

    /**
     * Refuses (409 `invalid_state`, naming the store) a payment in a store the portal shows inactive, before anything
     * is recorded. Its terminals and people (L4 to L6) are refused at the edge already; this is for those above it
     * (L0 to L3), who still reach a closed store to reactivate it or read its history, and whom the gateway would
     * refuse only after the payment was recorded.
     */
    async requireOpenStore(caller: Caller, storeId: number): Promise<void> {
      if (caller.type !== "user") return;
      if (!(await placeForUser(caller, storeId, "store")).active) throw storeInactive(storeId);
    },

    /** Refuses (404, as if it did not exist) a row of a store the caller does not reach. */
    async requireRow(caller: Caller, row: StoreRow, what: string): Promise<void> {
      const reach = reachOf(caller);
      const sameStore = () => {
        if (reach.level !== "store" || row.store_id !== reach.storeId || row.merchant_id !== reach.merchantId)
          throw notFound(what);
      };
      switch (reach.level) {
        case "platform":
          return;
        case "merchant":
          if (row.merchant_id !== reach.merchantId) throw notFound(what);
          return;
        case "store":
          return sameStore();
        case "psp":
        case "area":
          if ((await placeForUser(caller, row.store_id, what)).merchantId !== row.merchant_id) throw notFound(what);
          return;
        case "nothing":
          throw notFound(what);
      }
    },

    /** The rows a list may show: a named store the caller reaches, else everything its reach covers. */
    async listScope(caller: Caller, storeId: number | undefined): Promise<ListScope> {
      const reach = reachOf(caller);
      if (caller.type === "device") {
        const own = deviceStore(caller);
        if (storeId !== undefined && storeId !== own.storeId) throw notFound("store");
        return { store_id: own.storeId, merchant_id: own.merchantId };
      }
      if (storeId !== undefined) {
        const place = await placeForUser(caller, storeId, "store");
        return { store_id: place.storeId, merchant_id: place.merchantId };
      }
      switch (reach.level) {
        case "platform":
          return {};
        case "merchant":
          return { merchant_id: reach.merchantId };
        case "store":
          return { store_id: reach.storeId, merchant_id: reach.merchantId };
        case "psp":
        case "area":
          throw invalidField("store_id", "required", "store_id is required for your role");
        case "nothing":
          throw forbidden();
      }
    },

    ...customerAccess(portal),
    ...portalLookups(portal),
  };
  return { ...access, ...storeScopes(portal, access.listScope) };
}
