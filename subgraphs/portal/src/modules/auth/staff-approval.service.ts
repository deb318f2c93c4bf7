import { AppError, type Caller, invalidField, isRole, type Role, requireService, roles } from "@pos-cloud/common";
import type { AuditEvent, AuditLog } from "../audit/audit.repository";
import type { UserAuthentication, UserService } from "../users";
import type { LoginSecrets } from "./login-secrets.service";
import { isActive } from "./session.service";

/** Who approves a POS act, with which secret, asked by whom (`user:<id>` or `device:<id>`). */
interface Approval {
  store_id: number;
  login_id: string;
  secret?: string | null;
  caller: string;
}

/** A POS refund to approve (`approveRefund`). */
export interface RefundApproval extends Approval {
  payment_id: string;
  refund_id: string;
  amount: number;
}

/** A store's business day to settle or close (`approveSettlement`). */
export interface SettlementApproval extends Approval {
  business_date: string;
  settlement_id?: string | null;
}

/** What an approval needs: the least role, how the act is named in the audit log, and what it is done to. */
interface Act {
  least: Role;
  what: string;
  who: string;
  constraint: string;
  event: AuditEvent;
  target: { type: string; id: string };
  details: Record<string, unknown>;
}

/**
 * A staff member's approval of a POS act (a refund, a day's settlement), given with their staff code and secret, for
 * the POS (a platform service). The approver must be an active member of the store of at least the act's role. Their
 * secret (PIN, or password from L4 up) is checked as their login checks it, a wrong one counted towards the lockout
 * (a login id is printed on receipts, so it is no authority alone). Only a user who names themselves approves without
 * it; naming anyone else without their secret is a 400 on `staff_pin`. Every approval is audit-logged.
 */
export function staffApprovals(
  deps: { users: UserAuthentication; userService: UserService; audit: AuditLog },
  secrets: LoginSecrets,
) {
  const { users, audit } = deps;

  async function approve(input: Approval, act: Act, caller: Caller) {
    requireService(caller);
    const member = await deps.userService.storeMember(caller, input.store_id, input.login_id);
    const user = member && (await users.findByLoginId(input.login_id));
    if (!member || !isActive(user))
      throw invalidField("staff_code", "staff_of_store", "staff_code is not a staff member of this store");
    if (!isRole(user.role) || roles[user.role] > roles[act.least])
      throw new AppError("forbidden", `${act.what} needs the staff code of a ${act.who} or above`, {
        field: "staff_code",
        constraint: act.constraint,
      });
    const secretGiven = input.secret !== null && input.secret !== undefined;
    if (!secretGiven && input.caller !== `user:${user.id}`)
      throw invalidField(
        "staff_pin",
        "required",
        "staff_code names another staff member: give their staff_pin, or your own staff_code to approve it yourself",
      );
    if (secretGiven) await secrets.checkSecret(user, input.secret!, caller);
    await audit.record(
      {
        event: act.event,
        user_id: user.id,
        success: true,
        target: act.target,
        place: { store_id: input.store_id },
        metadata: {
          ...act.details,
          approver_user_id: user.id,
          approver_login_id: user.login_id,
          caller: input.caller,
          secret_checked: secretGiven,
        },
      },
      caller,
    );
    return member;
  }

  return {
    /** A refund, by a staff leader (L5) or above; audit-logged as `payment.refund_approved` with its details. */
    approveRefund: (input: RefundApproval, caller: Caller) =>
      approve(
        input,
        {
          least: "STAFF_LEADER",
          what: "a refund",
          who: "staff leader (L5)",
          constraint: "staff_leader",
          event: "payment.refund_approved",
          target: { type: "pos_payment", id: input.payment_id },
          details: { payment_id: input.payment_id, refund_id: input.refund_id, amount: input.amount },
        },
        caller,
      ),

    /** A day's settlement (opened or closed), by a store manager (L4) or above; `settlement.approved`. */
    approveSettlement: (input: SettlementApproval, caller: Caller) =>
      approve(
        input,
        {
          least: "STORE_MANAGER",
          what: "a settlement",
          who: "store manager (L4)",
          constraint: "store_manager",
          event: "settlement.approved",
          target: { type: "store", id: String(input.store_id) },
          details: { business_date: input.business_date, settlement_id: input.settlement_id ?? null },
        },
        caller,
      ),
  };
}
