import { createHash, randomBytes, randomUUID } from "node:crypto";
import { AppError, type Caller, HUMAN_TOKEN_ISSUER, HUMAN_TOKEN_LIFETIME_SECONDS } from "@pos-cloud/common";
import type { AuditLog } from "../audit/audit.repository";
import type { SigningKeyService } from "../keys";
import { storeClosed, type TenantService } from "../tenants";
import type { UserAuthentication, UserRow } from "../users";
import type { AuthRepository } from "./auth.repository";

export const REFRESH_TOKEN_MS = 12 * 60 * 60_000;

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: "Bearer";
}

export type SessionService = ReturnType<typeof sessionService>;

const sha256 = (value: string) => createHash("sha256").update(value).digest("base64url");
export const isActive = (user: UserRow | null): user is UserRow => user !== null && user.status === "active";

/**
 * The human claims of the spec (null where the tier has no such place), and `sid`, the session the token belongs to
 * (a login's refresh-token family, or one impersonation): what ends it alone (docs/decisions.md, "Sessions end
 * alone: an impersonation's logout, a refresh token's reuse").
 */
function claimsOf(user: UserRow, sessionId: string, impersonatedBy?: string) {
  return {
    iss: HUMAN_TOKEN_ISSUER,
    sub: user.id,
    role: user.role,
    merchant_id: user.merchant_id,
    store_id: user.store_id,
    psp_id: user.psp_id,
    area_id: user.area_id,
    sid: sessionId,
    ...(impersonatedBy ? { impersonated_by: impersonatedBy } : {}),
  };
}

/**
 * A person of one store (L4 to L6) works for it as its terminals do: while it or its merchant is inactive they get no
 * token (login, MFA, refresh, impersonation), a 403 naming the store; the tokens they held were revoked with it.
 */
function storeAtWork(tenants: Pick<TenantService, "storeClosedReason">) {
  return async (user: UserRow) => {
    if (user.store_id === null) return;
    const closed = await tenants.storeClosedReason(user.store_id);
    if (closed) throw storeClosed(user.store_id, closed);
  };
}

/**
 * A login's session: a 15-minute access token and a chain (family) of one-use refresh tokens. Only hashes of
 * refresh tokens are stored; replaying a used one ends the family, since one of its holders is not the user.
 */
export function sessionService(deps: {
  users: UserAuthentication;
  auth: AuthRepository;
  audit: AuditLog;
  signingKeys: SigningKeyService;
  tenants: Pick<TenantService, "storeClosedReason">;
  clock: () => Date;
}) {
  const { users, auth, audit, signingKeys, clock } = deps;

  const requireStoreAtWork = storeAtWork(deps.tenants);

  const accessToken = (user: UserRow, sessionId: string, adminId?: string) =>
    signingKeys.sign("human", claimsOf(user, sessionId, adminId), HUMAN_TOKEN_LIFETIME_SECONDS);

  async function issue(user: UserRow, familyId: string = randomUUID()): Promise<Tokens> {
    await requireStoreAtWork(user);
    const refreshToken = `rt_${randomBytes(32).toString("base64url")}`;
    const now = clock();
    await auth.createRefreshToken({
      family_id: familyId,
      user_id: user.id,
      token_hash: sha256(refreshToken),
      expires_at: new Date(now.getTime() + REFRESH_TOKEN_MS),
      created_at: now,
    });
    return {
      access_token: await accessToken(user, familyId),
      refresh_token: refreshToken,
      expires_in: HUMAN_TOKEN_LIFETIME_SECONDS,
      token_type: "Bearer",
    };
  }

  return {
    issue,
    requireStoreAtWork,

    /** A target's access token naming the admin; no refresh token, so it ends with its 15 minutes or its logout. */
    async impersonationToken(target: UserRow, adminId: string) {
      await requireStoreAtWork(target);
      return {
        access_token: await accessToken(target, randomUUID(), adminId),
        expires_in: HUMAN_TOKEN_LIFETIME_SECONDS,
        token_type: "Bearer" as const,
      };
    },

    /** Trades a refresh token for new tokens. Each works once; replaying a used one revokes its whole family. */
    async refresh(refreshToken: string, caller: Caller): Promise<Tokens> {
      const row = await auth.findRefreshToken(sha256(refreshToken));
      const now = clock();
      if (!row || row.revoked_at || row.expires_at <= now)
        throw new AppError("unauthorized", "the refresh token is not valid");
      if (!(await auth.useRefreshToken(row.id, now))) {
        await auth.revokeFamily(row.family_id, now);
        await audit.record(
          { event: "user.token_reuse", user_id: row.user_id, success: false, metadata: { family_id: row.family_id } },
          caller,
        );
        throw new AppError("unauthorized", "the refresh token was already used; the session has been ended");
      }
      const user = await users.find(row.user_id);
      if (!isActive(user)) {
        await auth.revokeFamily(row.family_id, now);
        throw new AppError("unauthorized", "the refresh token is not valid");
      }
      return issue(user, row.family_id);
    },

    /**
     * Ends the session of a refresh token, or every session of the calling user when none is given; an
     * impersonation's token without one ends that impersonation only.
     */
    async logout(refreshToken: string | null | undefined, caller: Caller): Promise<boolean> {
      const now = clock();
      if (refreshToken) {
        const row = await auth.findRefreshToken(sha256(refreshToken));
        if (!row) throw new AppError("unauthorized", "the refresh token is not valid");
        await auth.logOut(row.user_id, row.family_id, now);
        await audit.record(
          { event: "user.logout", user_id: row.user_id, success: true, metadata: { scope: "session" } },
          caller,
        );
        return true;
      }
      if (caller.type !== "user" || !caller.id) throw new AppError("unauthorized", "send the refresh token or log in");
      // An admin acting as a user logs out of the impersonation: the user's own sessions are not the admin's to end.
      if (caller.impersonatedBy) {
        // A token signed before sessions had ids ends with its 15 minutes.
        if (caller.sessionId) await auth.endSession(caller.sessionId, now);
        const metadata = { scope: "impersonation", admin_id: caller.impersonatedBy };
        await audit.record({ event: "user.logout", user_id: caller.id, success: true, metadata }, caller);
        return true;
      }
      await auth.logOut(caller.id, undefined, now);
      await audit.record(
        { event: "user.logout", user_id: caller.id, success: true, metadata: { scope: "all_sessions" } },
        caller,
      );
      return true;
    },
  };
}
