import { AppError, invalidField, isRole, type Role, roles } from "@pos-cloud/common";
import { hashSecret } from "./credentials";
import type { UserRepository } from "./user.repository";

// What a create or update may say about a user, checked before anything is written.

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
