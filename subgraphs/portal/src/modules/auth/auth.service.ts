import { AppError, type Caller, invalidField, roles, tierOf } from "@pos-cloud/common";
import type { AuditLog } from "../audit/audit.repository";
import { type UserAuthentication, type UserService, usesPassword } from "../users";
import type { AuthRepository } from "./auth.repository";
import { loginSecrets } from "./login-secrets.service";
import type { MfaService } from "./mfa.service";
import { isActive, type SessionService, type Tokens } from "./session.service";
import { staffApprovals } from "./staff-approval.service";

export type AuthService = ReturnType<typeof authService>;

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
  const { users, mfa, sessions, audit, clock } = deps;
  const secrets = loginSecrets(deps);

  return {
    /** Password login (L0 to L4). With MFA it opens a challenge; without, it returns tokens at once. */
    async login(input: { login_id?: string | null; email?: string | null; password: string }, caller: Caller) {
      if (!input.login_id && !input.email) throw invalidField("login_id", "required", "send login_id or email");
      const given = input.login_id ? { login_id: input.login_id } : { email: input.email!.toLowerCase() };
      const user = input.login_id
        ? await users.findByLoginId(input.login_id)
        : await users.findByEmail(input.email!.toLowerCase());
      if (!isActive(user) || !usesPassword(user.role))
        throw await secrets.unknown(caller, "password", given, input.password);
      await secrets.checkSecret(user, input.password, caller);
      await sessions.requireStoreAtWork(user);
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
        throw await secrets.unknown(caller, "pin", { login_id: input.login_id }, input.pin);
      await secrets.checkSecret(user, input.pin, caller);
      await sessions.requireStoreAtWork(user);
      await audit.record({ event: "user.login", user_id: user.id, success: true, metadata: { method: "pin" } }, caller);
      return sessions.issue(user);
    },

    ...staffApprovals(deps, secrets),

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
