import { type Role, roles } from "@pos-cloud/common";
import { generateURI } from "otplib";
import type { UserRow } from "./user.repository";

/** A user as clients see it: never a hash or a sealed secret. `totp_secret` only right after it was made. */
export interface UserView {
  id: string;
  login_id: string;
  role: string;
  tier: number;
  psp_id: number | null;
  merchant_id: number | null;
  area_id: string | null;
  store_id: number | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  mfa_enabled: boolean;
  mfa_channel: string | null;
  status: string;
  locked_until: Date | null;
  pin_locked: boolean;
  created_at: Date;
  updated_at: Date;
  totp_secret?: string;
  totp_uri?: string;
}

const TOTP_ISSUER = "POS Cloud";

export function view(user: UserRow, totpSecret?: string): UserView {
  const shown: UserView = {
    id: user.id,
    login_id: user.login_id,
    role: user.role,
    tier: roles[user.role as Role],
    psp_id: user.psp_id,
    merchant_id: user.merchant_id,
    area_id: user.area_id,
    store_id: user.store_id,
    name: user.name,
    email: user.email,
    phone: user.phone,
    mfa_enabled: user.mfa_enabled,
    mfa_channel: user.mfa_channel,
    status: user.status,
    locked_until: user.locked_until,
    pin_locked: user.pin_locked_at !== null,
    created_at: user.created_at,
    updated_at: user.updated_at,
  };
  if (totpSecret) {
    shown.totp_secret = totpSecret;
    shown.totp_uri = generateURI({ issuer: TOTP_ISSUER, label: user.login_id, secret: totpSecret });
  }
  return shown;
}
