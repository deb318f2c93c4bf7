import { AppError, invalidField, isRole, type Role, roles, type SecretBox } from "@pos-cloud/common";
import { generateSecret } from "otplib";
import type { Prisma } from "../../generated/prisma/client";
import { hashSecret } from "./credentials";
import type { UserRepository, UserRow } from "./user.repository";

// What a create or update may say about a user, checked before anything is written.

export type MfaChannel = "totp" | "sms" | "email";
const mfaChannels = new Set<string>(["totp", "sms", "email"]);

export interface UserInput {
  role?: string | null;
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  password?: string | null;
  pin?: string | null;
  psp_id?: number | null;
  merchant_id?: number | null;
  area_id?: string | null;
  store_id?: number | null;
  mfa_enabled?: boolean | null;
  mfa_channel?: string | null;
  status?: string | null;
  login_id?: string | null;
}

/** Tiers that log in with a password (and MFA); L5 and L6 use a PIN. */
export const usesPassword = (role: string) => isRole(role) && roles[role] <= roles.STORE_MANAGER;
/** MFA cannot be switched off for L0 to L3; it is the user's choice for L4; L5 and L6 have none. */
const mfaMandatory = (role: Role) => roles[role] <= roles.AREA_MANAGER;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+[1-9][0-9]{6,14}$/;
const PIN = /^[0-9]{6}$/;
const MIN_PASSWORD = 12;
const MAX_PASSWORD = 256;
export async function checkContact(users: UserRepository, input: UserInput, exceptId?: string) {
  if (input.email != null) {
    if (!EMAIL.test(input.email) || input.email.length > 254)
      throw invalidField("email", "format", "not an e-mail address");
    const owner = await users.findByEmail(input.email.toLowerCase());
    if (owner && owner.id !== exceptId)
      throw new AppError("conflict", "the e-mail address is taken", { field: "email" });
  }
  if (input.phone != null && !PHONE.test(input.phone))
    throw invalidField("phone", "format", "phone must be in E.164 form, for example +81312345678");
}

export async function secretsFor(role: Role, input: UserInput, creating: boolean) {
  const data: { password_hash?: string; pin_hash?: string } = {};
  if (usesPassword(role)) {
    if (input.pin != null) throw invalidField("pin", "not_allowed", `${role} logs in with a password, not a PIN`);
    if (input.password != null || creating) {
      const password = input.password ?? "";
      if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD)
        throw invalidField("password", "length", `password must be ${MIN_PASSWORD} to ${MAX_PASSWORD} characters`);
      data.password_hash = await hashSecret(password);
    }
  } else {
    if (input.password != null) throw invalidField("password", "not_allowed", `${role} logs in with a PIN`);
    if (input.pin != null || creating) {
      if (!PIN.test(input.pin ?? "")) throw invalidField("pin", "format", "pin must be 6 digits");
      data.pin_hash = await hashSecret(input.pin!);
    }
  }
  return data;
}

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
