import { createHash } from "node:crypto";
import { AppError, type Caller } from "@pos-cloud/common";
import type { AuditLog } from "../audit/audit.repository";
import { type UserAuthentication, type UserRow, usesPassword, verifySecret } from "../users";
import type { AuthRepository } from "./auth.repository";

export const MAX_FAILED_LOGINS = 5;
export const LOGIN_LOCK_MS = 15 * 60_000;
export const MAX_FAILED_PINS = 5;

export type LoginSecrets = ReturnType<typeof loginSecrets>;

type Method = "password" | "pin";

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

/** The secret of a login (password or PIN) checked with its lockouts, for a user's id and for an unknown one alike. */
export function loginSecrets(deps: {
  users: UserAuthentication;
  logins: AuthRepository;
  audit: AuditLog;
  clock: () => Date;
}) {
  const { users, logins, audit, clock } = deps;
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

  return { unknown, checkSecret };
}
