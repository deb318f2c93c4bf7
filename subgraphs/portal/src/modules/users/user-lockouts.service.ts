import { AppError, type Caller, roles } from "@pos-cloud/common";
import type { AuditEvent, AuditSink } from "../../audit-sink";
import type { Prisma } from "../../generated/prisma/client";
import { type UserView, view } from "./user.presenter";
import type { UserRepository } from "./user.repository";
import type { UserAccess } from "./user-access.service";
import { userChange } from "./user-audit.rules";

/** What authentication keeps on a user: failure counts, lockouts, the last TOTP step used. */
export type AuthenticationState = Pick<
  Prisma.UserUncheckedUpdateInput,
  "failed_logins" | "locked_until" | "failed_pins" | "pin_locked_at" | "last_totp_step"
>;

/** Failed logins and the lockouts they lead to, and an administrator's lock and unlock. */
export function userLockouts(users: UserRepository, audit: AuditSink, access: UserAccess) {
  return {
    /**
     * User rows as login, MFA and sessions read them, without a caller check (they establish who calls), and the
     * authentication state they keep.
     */
    authentication: {
      find: users.find,
      findByLoginId: users.findByLoginId,
      findByEmail: users.findByEmail,
      countFailedLogin: users.countFailedLogin,
      countFailedPin: users.countFailedPin,
      update: (id: string, state: AuthenticationState, change?: AuditEvent) =>
        users.update(id, state, change && audit.step(change)),
      /** The record of a change the authentication state makes to a user (a lockout). */
      change: userChange,
    },

    /**
     * Lifts a PIN lock, a password lockout and an administrator's lock; only an L4 or higher, above the user and
     * reaching it. A deactivated user stays inactive.
     */
    async unlock(caller: Caller, id: string): Promise<UserView> {
      const user = await access.requireManageable(caller, id, roles.STORE_MANAGER);
      return view(
        await users.update(
          id,
          {
            failed_pins: 0,
            pin_locked_at: null,
            failed_logins: 0,
            locked_until: null,
            ...(user.status === "locked" ? { status: "active" } : {}),
          },
          audit.step(userChange("user.unlocked", caller, user)),
        ),
      );
    },

    /** An administrator's lock: no login and no refresh until unlocked, and the user's sessions end now. */
    async lock(caller: Caller, id: string): Promise<UserView> {
      const user = await access.requireManageable(caller, id, roles.STORE_MANAGER);
      if (user.status === "inactive") throw new AppError("invalid_state", "a deactivated user cannot be locked");
      return view(await users.update(id, { status: "locked" }, audit.step(userChange("user.locked", caller, user))));
    },
  };
}
