import { createHash } from "node:crypto";
import { AppError, type Caller, invalidField, isRole, requireService, roles, tierOf } from "@pos-cloud/common";
import type { AuditLog } from "../audit/audit.repository";
import { verifySecret } from "../users/credentials";
import type { UserAuthentication, UserRow, UserService } from "../users/user.service";
import { usesPassword } from "../users/user-input";
import type { AuthRepository } from "./auth.repository";
import type { MfaService } from "./mfa.service";
import { isActive, type SessionService, type Tokens } from "./session.service";

export const MAX_FAILED_LOGINS = 5;
export const LOGIN_LOCK_MS = 15 * 60_000;
export const MAX_FAILED_PINS = 5;

export type AuthService = ReturnType<typeof authService>;

type Method = "password" | "pin";

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

const rejected = () => new AppError("unauthorized", "the login id or the secret is wrong");

// The answers while a login is locked, the same whether the id belongs to a user or not.
const passwordLocked = (until: Date) =>
  new AppError("locked", "too many failed logins; try again later", { locked_until: until.toISOString() });
const pinLocked = () =>
  new AppError("locked", "too many wrong PINs; a store manager must unlock this user", { reason: "pin_locked" });

/** Where the failures of an identifier no user answers to are counted: a hash, so the id itself is not kept. */
const unknownKey = (method: Method, given: Record<string, unknown>) =>
  createHash("sha256")
    .update(JSON.stringify([method, given]))
    .digest("base64url");

/** Password and PIN login with their lockouts, the MFA step, sessions and impersonation: what `/auth/...` does. */
export function authService(deps: {
  users: UserAuthentication;
  userService: UserService;
  logins: AuthRepository;
  mfa: MfaService;
  sessions: SessionService;
  audit: AuditLog;
  clock: () => Date;
}) {
  const { users, logins, mfa, sessions, audit, clock } = deps;
  const failed = (userId: string | null, caller: Caller, metadata: Record<string, unknown>) =>
    audit.record({ event: "user.login_failed", user_id: userId, success: false, metadata }, caller);

  /** Counts a failure: the fifth wrong password in a row locks for 15 minutes, the fifth wrong PIN until unlocked. */
  async function countFailure(user: UserRow, caller: Caller, method: Method) {
    if (method === "password") {
      if ((await users.countFailedLogin(user.id)) >= MAX_FAILED_LOGINS)
        await users.update(
          user.id,
          { failed_logins: 0, locked_until: new Date(clock().getTime() + LOGIN_LOCK_MS) },
          users.change("user.locked", caller, user, { method }),
        );
    } else if ((await users.countFailedPin(user.id)) >= MAX_FAILED_PINS) {
      await users.update(user.id, { pin_locked_at: clock() }, users.change("user.locked", caller, user, { method }));
    }
    await failed(user.id, caller, { method, reason: "wrong_secret" });
    return rejected();
  }

  /**
   * An id no active user of this method answers to is answered exactly like a user's: one hash, the same refusal,
   * and its failures are counted and lock it the same way, so neither the answer nor the lockout tells that it does
   * not exist.
   */
  async function unknown(caller: Caller, method: Method, given: Record<string, unknown>, secret: string) {
    const key = unknownKey(method, given);
    const lockedAt = (await logins.unknownLoginFailure(key))?.locked_at;
    const until = lockedAt && new Date(lockedAt.getTime() + LOGIN_LOCK_MS);
    if (until && (method === "pin" || until > clock())) {
      await failed(null, caller, { method, ...given, reason: "locked" });
      return method === "pin" ? pinLocked() : passwordLocked(until);
    }
    await verifySecret(secret, null);
    if ((await logins.countUnknownLoginFailure(key)) >= (method === "password" ? MAX_FAILED_LOGINS : MAX_FAILED_PINS))
      await logins.lockUnknownLogin(key, clock());
    await failed(null, caller, { method, ...given, reason: "unknown_user" });
    return rejected();
  }

  /**
   * A known user's secret by its login method (password for L0 to L4, PIN for L5 and L6), refused while locked;
   * a wrong one counts towards the method's lockout, a right one clears the count.
   */
  async function checkSecret(user: UserRow, secret: string, caller: Caller) {
    const method: Method = usesPassword(user.role) ? "password" : "pin";
    if (method === "pin" && user.pin_locked_at) {
      await failed(user.id, caller, { method, reason: "locked" });
      throw pinLocked();
    }
    if (method === "password" && user.locked_until && user.locked_until > clock()) {
      await failed(user.id, caller, { method, reason: "locked" });
      throw passwordLocked(user.locked_until);
    }
    if (!(await verifySecret(secret, method === "pin" ? user.pin_hash : user.password_hash)))
      throw await countFailure(user, caller, method);
    await users.update(user.id, method === "pin" ? { failed_pins: 0 } : { failed_logins: 0, locked_until: null });
  }

  return {
    /** Password login (L0 to L4). With MFA it opens a challenge; without, it returns tokens at once. */
    async login(input: { login_id?: string | null; email?: string | null; password: string }, caller: Caller) {
      if (!input.login_id && !input.email) throw invalidField("login_id", "required", "send login_id or email");
      const given = input.login_id ? { login_id: input.login_id } : { email: input.email!.toLowerCase() };
      const user = input.login_id
        ? await users.findByLoginId(input.login_id)
        : await users.findByEmail(input.email!.toLowerCase());
      if (!isActive(user) || !usesPassword(user.role)) throw await unknown(caller, "password", given, input.password);
      await checkSecret(user, input.password, caller);
      const metadata = { method: "password", ...(user.mfa_enabled ? { mfa_pending: true } : {}) };
      await audit.record({ event: "user.login", user_id: user.id, success: true, metadata }, caller);
      if (user.mfa_enabled) {
        await mfa.open(user);
        return { user_id: user.id, mfa_required: true, mfa_channel: user.mfa_channel };
      }
      return { user_id: user.id, mfa_required: false, mfa_channel: null, ...(await sessions.issue(user)) };
    },

    sendMfa: mfa.send,

    async verifyMfa(userId: string, code: string, caller: Caller): Promise<Tokens> {
      return sessions.issue(await mfa.verify(userId, code, caller));
    },

    /** PIN login for L5 and L6; five wrong PINs lock it until a store manager or higher unlocks the user. */
    async pinLogin(input: { login_id: string; pin: string }, caller: Caller): Promise<Tokens> {
      const user = await users.findByLoginId(input.login_id);
      if (!isActive(user) || usesPassword(user.role))
        throw await unknown(caller, "pin", { login_id: input.login_id }, input.pin);
      await checkSecret(user, input.pin, caller);
      await audit.record({ event: "user.login", user_id: user.id, success: true, metadata: { method: "pin" } }, caller);
      return sessions.issue(user);
    },

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
      if (input.secret !== null && input.secret !== undefined) await checkSecret(user, input.secret, caller);
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

    refresh: sessions.refresh,
    logout: sessions.logout,

    /** An access token for a user strictly below the caller, inside its reach; never from an impersonation. */
    async impersonate(targetUserId: string, caller: Caller) {
      const tier = tierOf(caller);
      if (tier === undefined || !caller.id)
        throw new AppError(caller.type === "anonymous" ? "unauthorized" : "forbidden", "log in as a user");
      const adminId = caller.id;
      const refuse = async (reason: string, message: string) => {
        const metadata = { target_user_id: targetUserId, reason };
        await audit.record({ event: "admin.impersonate", user_id: adminId, success: false, metadata }, caller);
        return new AppError("forbidden", message, { reason });
      };
      if (caller.impersonatedBy) throw await refuse("nested", "an impersonation session cannot impersonate further");
      const target = await users.find(targetUserId).catch(() => null);
      if (!isActive(target)) throw await refuse("not_found", "no such active user");
      if (roles[target.role as keyof typeof roles] <= tier)
        throw await refuse("not_below", "you may only impersonate users below your tier");
      if (!(await deps.userService.manageable(caller, target)))
        throw await refuse("out_of_reach", "that user is outside your reach");
      const token = await sessions.impersonationToken(target, adminId);
      const metadata = { admin_id: adminId, target_user_id: target.id, started_at: clock().toISOString() };
      await audit.record({ event: "admin.impersonate", user_id: adminId, success: true, metadata }, caller);
      return token;
    },
  };
}
