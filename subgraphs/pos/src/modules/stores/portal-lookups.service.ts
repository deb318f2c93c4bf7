import { AppError, type Caller, invalidField } from "@pos-cloud/common";
import {
  PosApproveRefundDocument,
  type PosApproveRefundMutationVariables,
  PosApproveSettlementDocument,
  type PosApproveSettlementMutationVariables,
  PosReceiptIssuerDocument,
  PosStaffMemberDocument,
  type PosStaffMemberQuery,
} from "./operations/portal.generated";
import { askPortal, type PortalCall } from "./portal.client";

/** The POS itself, when it asks the portal what no client may ask (a staff code). */
const posService: Caller = { type: "service", id: "pos", scopes: [] };

/** A staff member as the portal knows it. */
type StaffMember = NonNullable<PosStaffMemberQuery["storeMember"]>;

const staffCodePattern = /^[A-Z]{3}-[A-Z0-9-]{3,40}$/;

/** What the POS asks the portal as itself: a staff code's member, a refund's approval, a receipt's issuer. */
/** The portal's answer to an approval: the staff code checked first, a wrong secret the POS's 403 on `staff_pin`. */
async function approved(input: { login_id: string }, ask: () => Promise<StaffMember>): Promise<StaffMember> {
  if (!staffCodePattern.test(input.login_id))
    throw invalidField("staff_code", "format", "staff_code must be a staff member's login id, for example STF-ABC-123");
  try {
    return await ask();
  } catch (error) {
    if (error instanceof AppError && error.code === "unauthorized")
      throw new AppError("forbidden", "staff_pin is wrong", { field: "staff_pin", constraint: "pin" });
    throw error;
  }
}

export function portalLookups(portal: PortalCall) {
  return {
    /**
     * A staff code: the login id of an active user who reaches the store (its staff, its manager, or a tier above
     * over it), as the portal answers for the POS service. Anything else is a 400 naming the field.
     */
    async staffMember(store: { storeId: number }, staffCode: unknown, field = "staff_code"): Promise<StaffMember> {
      if (typeof staffCode !== "string" || !staffCodePattern.test(staffCode))
        throw invalidField(field, "format", `${field} must be a staff member's login id, for example STF-ABC-123`);
      const { storeMember } = await askPortal(
        portal,
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
    approveRefund: (input: PosApproveRefundMutationVariables["input"]) =>
      approved(
        input,
        async () => (await askPortal(portal, PosApproveRefundDocument, { input }, posService)).approveRefund!,
      ),

    /** A settlement's approval by the portal, as a refund's, by a store manager (L4) or above. */
    approveSettlement: (input: PosApproveSettlementMutationVariables["input"]) =>
      approved(
        input,
        async () => (await askPortal(portal, PosApproveSettlementDocument, { input }, posService)).approveSettlement!,
      ),

    /**
     * What a store's receipts print about their issuer, as the portal answers the POS service (the caller was checked
     * against the receipt's payment first): the store's name, address and receipt settings, the merchant's names and
     * invoice settings.
     */
    async receiptIssuer(storeId: number) {
      const { receiptIssuer } = await askPortal(portal, PosReceiptIssuerDocument, { store_id: storeId }, posService);
      if (!receiptIssuer) throw new AppError("bad_gateway", "the portal does not know the payment's store");
      return receiptIssuer;
    },
  };
}
