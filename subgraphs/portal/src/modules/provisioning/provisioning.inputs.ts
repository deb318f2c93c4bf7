import { z } from "zod";
import { serialNumber } from "../devices/device.inputs";

const base64url = (length: number) => z.string().regex(new RegExp(`^[A-Za-z0-9_-]{${length}}$`), "base64url");

/** Public half only: a JWK carrying the private `d` is refused, so a device never sends its secret by mistake. */
export const publicKeyJwk = z.strictObject({
  kty: z.literal("EC"),
  crv: z.literal("P-256"),
  x: base64url(43),
  y: base64url(43),
  kid: z.string().max(100).optional(),
  alg: z.literal("ES256").optional(),
  use: z.literal("sig").optional(),
});

export const generateInput = z.strictObject({
  serial_number: serialNumber,
  public_key_jwk: publicKeyJwk,
  model: z.string().trim().min(1).max(100),
  manufacturer: z.string().trim().min(1).max(100),
});

export const activationCode = z
  .string()
  .transform((code) => code.toUpperCase().replace(/[\s-]/g, ""))
  .pipe(z.string().regex(/^[0-9A-HJKMNP-TV-Z]{12}$/, "12 characters of the activation code alphabet"));

export const activateInput = z.strictObject({
  activation_code: activationCode,
  store_id: z.number().int().positive(),
});

export const issueInput = z.strictObject({ store_id: z.number().int().positive() });

export const registerInput = generateInput.extend({ activation_code: activationCode });
