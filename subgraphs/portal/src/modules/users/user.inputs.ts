import { AppError, invalidField, isRole, type Role, roles } from "@pos-cloud/common";
import { z } from "zod";
import { hashSecret } from "./credentials.rules";
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

const MIN_PASSWORD = 12;
const MAX_PASSWORD = 256;
const email = z
  .string()
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/)
  .max(254);
const phone = z.string().regex(/^\+[1-9][0-9]{6,14}$/);
const pin = z.string().regex(/^[0-9]{6}$/);
const password = z.string().min(MIN_PASSWORD).max(MAX_PASSWORD);

export async function checkContact(users: UserRepository, input: UserInput, exceptId?: string) {
  if (input.email != null) {
    if (!email.safeParse(input.email).success) throw invalidField("email", "format", "not an e-mail address");
    const owner = await users.findByEmail(input.email.toLowerCase());
    if (owner && owner.id !== exceptId)
      throw new AppError("conflict", "the e-mail address is taken", { field: "email" });
  }
  if (input.phone != null && !phone.safeParse(input.phone).success)
    throw invalidField("phone", "format", "phone must be in E.164 form, for example +81312345678");
}

export async function secretsFor(role: Role, input: UserInput, creating: boolean) {
  const data: { password_hash?: string; pin_hash?: string } = {};
  if (usesPassword(role)) {
    if (input.pin != null) throw invalidField("pin", "not_allowed", `${role} logs in with a password, not a PIN`);
    if (input.password != null || creating) {
      const sent = input.password ?? "";
      if (!password.safeParse(sent).success)
        throw invalidField("password", "length", `password must be ${MIN_PASSWORD} to ${MAX_PASSWORD} characters`);
      data.password_hash = await hashSecret(sent);
    }
  } else {
    if (input.password != null) throw invalidField("password", "not_allowed", `${role} logs in with a PIN`);
    if (input.pin != null || creating) {
      if (!pin.safeParse(input.pin ?? "").success) throw invalidField("pin", "format", "pin must be 6 digits");
      data.pin_hash = await hashSecret(input.pin!);
    }
  }
  return data;
}
