import { createHash, randomBytes } from "node:crypto";

export const PAYMENT_TOKEN_SECONDS = 300;

/** Opaque, 256 bits of randomness; only its hash is stored, so a database read does not yield usable tokens. */
export function newPaymentToken(): { token: string; token_hash: string } {
  const token = `pt_${randomBytes(32).toString("base64url")}`;
  return { token, token_hash: hashPaymentToken(token) };
}

export const hashPaymentToken = (token: string) => createHash("sha256").update(token).digest("hex");
