import { z } from "zod";

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

export const MIN_PASSWORD = 12;
export const MAX_PASSWORD = 256;
export const userEmail = z
  .string()
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/)
  .max(254);
export const userPhone = z.string().regex(/^\+[1-9][0-9]{6,14}$/);
export const userPin = z.string().regex(/^[0-9]{6}$/);
export const userPassword = z.string().min(MIN_PASSWORD).max(MAX_PASSWORD);
