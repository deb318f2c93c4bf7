import { AppError, type Caller, invalidField, isRole, requireService, roles } from "@pos-cloud/common";
import type { AuditLog } from "../audit/audit.repository";
import type { UserAuthentication, UserService } from "../users/user.service";
import type { LoginSecrets } from "./login-secrets";
import { isActive } from "./session.service";

/** A POS refund to approve (`approveRefund`). */
export interface RefundApproval {
  store_id: number;
  login_id: string;
  secret?: string | null;
  payment_id: string;
  refund_id: string;
  amount: number;
  caller: string;
}

/** A staff member's approval of a POS refund, given with their staff code (and secret). */
export function refundApprovals(
  deps: { users: UserAuthentication; userService: UserService; audit: AuditLog },
  secrets: LoginSecrets,
) {
  const { users, audit } = deps;
  return {
    /**
     * For the POS (a platform service): a refund approved by a staff member of the store, L5 or above. The approver's
     * secret (PIN, or password from L4 up) is checked as its login checks it, a wrong one counted towards its lockout;
     * it is not needed when the refund's caller is L5 or above itself (`secret` null). The approval is audit-logged
     * as `payment.refund_approved` with the refund's details (the POS records `payment.refunded` when it refunds).
     */
    async approveRefund(input: RefundApproval, caller: Caller) {
      requireService(caller);
      const member = await deps.userService.storeMember(caller, input.store_id, input.login_id);
      const user = member && (await users.findByLoginId(input.login_id));
      if (!member || !isActive(user))
        throw invalidField("staff_code", "staff_of_store", "staff_code is not a staff member of this store");
      if (!isRole(user.role) || roles[user.role] > roles.STAFF_LEADER)
        throw new AppError("forbidden", "a refund needs the staff code of a staff leader (L5) or above", {
          field: "staff_code",
          constraint: "staff_leader",
        });
      if (input.secret !== null && input.secret !== undefined) await secrets.checkSecret(user, input.secret, caller);
      const metadata = {
        payment_id: input.payment_id,
        refund_id: input.refund_id,
        amount: input.amount,
        approver_user_id: user.id,
        approver_login_id: user.login_id,
        caller: input.caller,
        secret_checked: input.secret !== null && input.secret !== undefined,
      };
      await audit.record(
        {
          event: "payment.refund_approved",
          user_id: user.id,
          success: true,
          target: { type: "pos_payment", id: input.payment_id },
          place: { store_id: input.store_id },
          metadata,
        },
        caller,
      );
      return member;
    },
  };
}
