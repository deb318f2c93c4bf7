import { z } from "zod";
import { exportFormats } from "./settlement-file.format";

/** A host name or an IP address, no scheme, port or path. */
const HOST = /^[A-Za-z0-9.-]+$|^\[?[0-9A-Fa-f:]+\]?$/;

/**
 * An SSH host key's fingerprint as `ssh-keygen -lf` prints it: `SHA256:` and the SHA-256's 32 bytes in base64
 * without its padding, 43 characters whose last holds 4 bits (so only these 16 letters can end it).
 */
const HOST_KEY_FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]$/;

/** A merchant's accounting export: its format and SFTP server, with exactly one of a password and a private key. */
export const accountingExportSettings = z
  .strictObject({
    merchant_id: z.number().int().positive(),
    format: z.enum(exportFormats),
    host: z.string().trim().min(1).max(253).regex(HOST, "host must be a host name or an IP address"),
    port: z.number().int().min(1).max(65535).default(22),
    username: z.string().trim().min(1).max(64),
    path: z
      .string()
      .trim()
      .max(255)
      .regex(/^\/[^\0]*$/, "path must be an absolute folder, for example /incoming")
      .default("/"),
    password: z.string().min(1).max(256).optional(),
    private_key: z.string().min(1).max(16_384).optional(),
    host_key_fingerprint: z
      .string()
      .trim()
      .regex(HOST_KEY_FINGERPRINT, "host_key_fingerprint must be written as ssh-keygen -lf prints it, SHA256:<base64>")
      .optional(),
  })
  .superRefine((value, context) => {
    if ((value.password === undefined) === (value.private_key === undefined))
      context.addIssue({
        code: "custom",
        path: ["password"],
        message: "give exactly one of password and private_key",
        params: { constraint: "one_credential" },
      });
  });

/** A store's business day to send again. */
export const accountingExportResend = z.strictObject({
  store_id: z.number().int().positive(),
  date: z.string(),
});

/** Which deliveries to list: a merchant's, of one day or store when given. */
export const accountingExportDeliveryFilter = z.strictObject({
  merchant_id: z.number().int().positive(),
  store_id: z.number().int().positive().optional(),
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "date must be written YYYY-MM-DD")
    .optional(),
});
