import {
  AppError,
  type Caller,
  forbidden,
  invalidField,
  notFound,
  reachOf,
  requireCaller,
  roles,
  tierOf,
} from "@pos-cloud/common";
import { PosMerchantDocument } from "./operations/portal.generated";
import { askPortal, type PortalCall } from "./portal.client";

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

/** A merchant as the portal shows it to this user; 404 (as `what`) when the user does not reach it. */
async function merchantForUser(portal: PortalCall, caller: Caller, merchantId: number, what: string): Promise<void> {
  try {
    await askPortal(portal, PosMerchantDocument, { id: merchantId }, caller);
  } catch (error) {
    if (error instanceof AppError && (error.code === "forbidden" || error.code === "not_found")) throw notFound(what);
    throw error;
  }
}

/** Who may work with which merchant's customers: Store Managers (L4) and above, in the merchants they reach. */
export function customerAccess(portal: PortalCall) {
  return {
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
        await merchantForUser(portal, caller, merchantId, "merchant");
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
      if (reach.level === "psp") return merchantForUser(portal, caller, row.merchant_id, "customer");
      if (row.merchant_id !== reach.merchantId) throw notFound("customer");
    },
  };
}
