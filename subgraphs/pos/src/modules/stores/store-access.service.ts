import type { DocumentTypeDecoration } from "@graphql-typed-document-node/core";
import {
  AppError,
  type Caller,
  forbidden,
  invalidField,
  isErrorCode,
  notFound,
  reachOf,
  requireCaller,
  requireDevice,
  roles,
  tierOf,
} from "@pos-cloud/common";
import type { ListScope } from "../../list-scope";
import {
  PosApproveRefundDocument,
  type PosApproveRefundMutationVariables,
  PosMerchantDocument,
  PosReceiptIssuerDocument,
  type PosReceiptIssuerQuery,
  PosStaffMemberDocument,
  type PosStaffMemberQuery,
  PosStoreDocument,
} from "./operations/portal.generated";
import type { PortalCall } from "./portal.client";

export type StoreAccess = ReturnType<typeof storeAccess>;

/** A store a caller acts in, with the merchant the portal placed it under. */
export interface StorePlace {
  storeId: number;
  merchantId: number;
}

/** What the portal holds about a store's receipts' issuer (`receiptIssuer`). */
export type ReceiptIssuerRecord = NonNullable<PosReceiptIssuerQuery["receiptIssuer"]>;

/** A staff member as the portal knows it. */
export type StaffMember = NonNullable<PosStaffMemberQuery["storeMember"]>;

/** The POS itself, when it asks the portal what no client may ask (a staff code). */
const posService: Caller = { type: "service", id: "pos", scopes: [] };

const staffCodePattern = /^[A-Z]{3}-[A-Z0-9-]{3,40}$/;

/** Customers are a merchant's: what a caller of tier L4 or above reaches of them. */
type CustomerReach = { level: "platform" } | { level: "psp" } | { level: "merchant"; merchantId: number };

/** Store Managers (L4) and above work with customers: lower tiers, devices and other callers are refused (403). */
function customerReach(caller: Caller): CustomerReach {
  requireCaller(caller);
  const tier = tierOf(caller);
  if (tier === undefined || tier > roles.STORE_MANAGER)
    throw forbidden("customers are for a Store Manager (L4) or above");
  const reach = reachOf(caller);
  if (reach.level === "platform" || reach.level === "psp") return { level: reach.level };
  if (reach.level === "nothing" || reach.merchantId === undefined) throw forbidden();
  return { level: "merchant", merchantId: reach.merchantId };
}

/**
 * Who may act in which store. Devices act in the store of their token, with the scope the action needs. Humans
 * (L0 to L6) act in stores they reach: the portal answers `store(id)` for them, so its rules decide, and POS rows
 * of a store they do not reach are not found (404), like a row that does not exist.
 */
export function storeAccess(portal: PortalCall) {
  async function ask<Result, Variables extends Record<string, unknown>>(
    operation: DocumentTypeDecoration<Result, Variables>,
    variables: Variables,
    caller: Caller,
  ): Promise<Result> {
    const result = await portal(operation.toString(), variables, caller);
    const error = result.errors?.[0];
    if (error) {
      const code = error.extensions?.code;
      const details = (error.extensions?.details ?? {}) as Record<string, unknown>;
      throw isErrorCode(code)
        ? new AppError(code, error.message, details)
        : new AppError("bad_gateway", "the portal failed");
    }
    return result.data as Result;
  }

  /** A store as the portal shows it to this user; 404 when the user does not reach it. */
  async function placeForUser(caller: Caller, storeId: number, what: string): Promise<StorePlace> {
    try {
      const { store } = await ask(PosStoreDocument, { id: storeId }, caller);
      return { storeId: store.id, merchantId: store.merchant_id };
    } catch (error) {
      if (error instanceof AppError && (error.code === "forbidden" || error.code === "not_found")) throw notFound(what);
      throw error;
    }
  }

  /** A merchant as the portal shows it to this user; 404 (as `what`) when the user does not reach it. */
  async function merchantForUser(caller: Caller, merchantId: number, what: string): Promise<void> {
    try {
      await ask(PosMerchantDocument, { id: merchantId }, caller);
    } catch (error) {
      if (error instanceof AppError && (error.code === "forbidden" || error.code === "not_found")) throw notFound(what);
      throw error;
    }
  }

  function deviceStore(caller: Caller): StorePlace {
    if (caller.storeId === undefined || caller.merchantId === undefined) throw forbidden("the device has no store");
    return { storeId: caller.storeId, merchantId: caller.merchantId };
  }

  return {
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

    /** Refuses (404, as if it did not exist) a row of a store the caller does not reach. */
    async requireRow(caller: Caller, row: { store_id: number; merchant_id: number }, what: string): Promise<void> {
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

    /**
     * The merchant whose customers a caller works with (the spec: Store Manager, L4, and above; below, and devices,
     * 403). L2 to L4 work in their own merchant (another `merchantId` is 404); L0 and L1 name one, which the portal
     * answers for (an L1 reaches only its PSP's merchants).
     */
    async customerMerchant(caller: Caller, merchantId: number | undefined): Promise<number> {
      const reach = customerReach(caller);
      if (reach.level === "platform" || reach.level === "psp") {
        if (merchantId === undefined)
          throw invalidField("merchant_id", "required", "merchant_id is required for your role");
        await merchantForUser(caller, merchantId, "merchant");
        return merchantId;
      }
      if (merchantId !== undefined && merchantId !== reach.merchantId) throw notFound("merchant");
      return reach.merchantId;
    },

    /** Refuses (403) a caller below Store Manager (L4), a device or any other caller that is not a user. */
    requireCustomerRole: (caller: Caller): void => void customerReach(caller),

    /** Refuses (403 below L4; 404, as if it did not exist, for a merchant the caller does not reach) a customer. */
    async requireCustomer(caller: Caller, row: { merchant_id: number }): Promise<void> {
      const reach = customerReach(caller);
      if (reach.level === "platform") return;
      if (reach.level === "psp") return merchantForUser(caller, row.merchant_id, "customer");
      if (row.merchant_id !== reach.merchantId) throw notFound("customer");
    },

    /**
     * A staff code: the login id of an active user who reaches the store (its staff, its manager, or a tier above
     * over it), as the portal answers for the POS service. Anything else is a 400 naming the field.
     */
    async staffMember(store: StorePlace, staffCode: unknown, field = "staff_code"): Promise<StaffMember> {
      if (typeof staffCode !== "string" || !staffCodePattern.test(staffCode))
        throw invalidField(field, "format", `${field} must be a staff member's login id, for example STF-ABC-123`);
      const { storeMember } = await ask(
        PosStaffMemberDocument,
        { store_id: store.storeId, login_id: staffCode },
        posService,
      );
      if (!storeMember) throw invalidField(field, "staff_of_store", `${field} is not a staff member of this store`);
      return storeMember;
    },

    /**
     * A refund's approval by the portal, which audit-logs it: the staff code of a staff leader (L5) or above of the
     * store (400 not staff, 403 below L5) and, when given, that member's secret, checked and counted towards its
     * lockout like its login (403 when wrong, the lockout's error when locked).
     */
    async approveRefund(input: PosApproveRefundMutationVariables["input"]): Promise<StaffMember> {
      if (!staffCodePattern.test(input.login_id))
        throw invalidField(
          "staff_code",
          "format",
          "staff_code must be a staff member's login id, for example STF-ABC-123",
        );
      try {
        return (await ask(PosApproveRefundDocument, { input }, posService)).approveRefund!;
      } catch (error) {
        if (error instanceof AppError && error.code === "unauthorized")
          throw new AppError("forbidden", "staff_pin is wrong", { field: "staff_pin", constraint: "pin" });
        throw error;
      }
    },

    /**
     * What a store's receipts print about their issuer, as the portal answers the POS service (the caller was checked
     * against the receipt's payment first): the store's name, address and receipt settings, the merchant's names and
     * invoice settings.
     */
    async receiptIssuer(storeId: number): Promise<ReceiptIssuerRecord> {
      const { receiptIssuer } = await ask(PosReceiptIssuerDocument, { store_id: storeId }, posService);
      if (!receiptIssuer) throw new AppError("bad_gateway", "the portal does not know the payment's store");
      return receiptIssuer;
    },
  };
}
