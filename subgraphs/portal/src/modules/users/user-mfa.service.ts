import { type Caller, invalidField, type Role, roles, type SecretBox } from "@pos-cloud/common";
import { generateSecret } from "otplib";
import type { AuditSink } from "../../audit-sink";
import type { Prisma } from "../../generated/prisma/client";
import type { UserInput } from "./user.inputs";
import { type UserView, view } from "./user.presenter";
import type { UserRepository, UserRow } from "./user.repository";
import type { UserAccess } from "./user-access.service";
import { userChange } from "./user-audit.rules";

export type MfaChannel = "totp" | "sms" | "email";
const mfaChannels = new Set<string>(["totp", "sms", "email"]);

/** MFA cannot be switched off for L0 to L3; it is the user's choice for L4; L5 and L6 have none. */
const mfaMandatory = (role: Role) => roles[role] <= roles.AREA_MANAGER;

/** MFA settings for a role; a new TOTP secret when the channel becomes TOTP. */
export function mfaFor(box: SecretBox, role: Role, input: UserInput, current?: UserRow) {
  const tier = roles[role];
  if (tier > roles.STORE_MANAGER) {
    if (input.mfa_enabled || input.mfa_channel != null)
      throw invalidField("mfa_enabled", "not_allowed", `${role} logs in with a PIN, without MFA`);
    return { data: { mfa_enabled: false, mfa_channel: null } };
  }
  if (input.mfa_enabled === false && mfaMandatory(role))
    throw invalidField("mfa_enabled", "mandatory", `MFA is mandatory for ${role}`);
  const enabled = mfaMandatory(role) || (input.mfa_enabled ?? current?.mfa_enabled ?? true);
  const channel = input.mfa_channel ?? current?.mfa_channel ?? "totp";
  if (!mfaChannels.has(channel)) throw invalidField("mfa_channel", "enum", "mfa_channel must be totp, sms or email");
  const email = input.email !== undefined ? input.email : current?.email;
  const phone = input.phone !== undefined ? input.phone : current?.phone;
  if (enabled && channel === "email" && !email)
    throw invalidField("email", "required", "MFA by e-mail needs an e-mail");
  if (enabled && channel === "sms" && !phone) throw invalidField("phone", "required", "MFA by SMS needs a phone");
  const data: Prisma.UserUncheckedUpdateInput = { mfa_enabled: enabled, mfa_channel: channel };
  let totpSecret: string | undefined;
  if (enabled && channel === "totp" && (!current?.totp_secret || current.mfa_channel !== "totp")) {
    totpSecret = generateSecret();
    data.totp_secret = box.seal(totpSecret);
    data.last_totp_step = null;
  }
  return { data, totpSecret };
}

/** An administrator's reset of a user's second factor. */
export function userMfa(users: UserRepository, box: SecretBox, audit: AuditSink, access: UserAccess) {
  return {
    /**
     * A new TOTP secret (shown once) for a user who lost their authenticator, replacing any other MFA channel; for
     * L0 to L4 (L5 and L6 have no MFA). The user's sessions end, as after a lost second factor they may be another's.
     */
    async resetMfa(caller: Caller, id: string): Promise<UserView> {
      const user = await access.requireManageable(caller, id, roles.STORE_MANAGER);
      const mfa = mfaFor(
        box,
        user.role as Role,
        { mfa_enabled: true, mfa_channel: "totp" },
        { ...user, totp_secret: null },
      );
      return view(
        await users.update(id, mfa.data, audit.step(userChange("user.mfa_reset", caller, user)), { endSessions: true }),
        mfa.totpSecret,
      );
    },
  };
}
