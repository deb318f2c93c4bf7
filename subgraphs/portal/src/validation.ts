import { printable, tipCeilingPercent } from "@pos-cloud/common";
import { z } from "zod";

export { type Page, type PageArgs, parseInput, parsePage } from "@pos-cloud/common";

export const code = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/, "1 to 32 letters, digits, '-' or '_', starting with a letter or digit");
/** A tenant's name, printed on receipts and tax invoices. */
export const name = printable(z.string().trim().min(1).max(200));
export const email = z.email().max(254);
export const phone = z.string().regex(/^\+?[0-9][0-9 -]{5,19}$/, "a phone number, E.164 recommended");
/** An issuer's address, printed on receipts and tax invoices. */
export const address = z.strictObject({
  street: printable(z.string().max(200)).optional(),
  city: printable(z.string().max(100)).optional(),
  postal_code: printable(z.string().max(20)).optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, "ISO 3166-1 alpha-2")
    .optional(),
});
export const paymentMethod = z.enum(["qr_mpm", "qr_cpm", "credit_card", "emoney", "cash"]);
export const receiptDelivery = z.enum(["print", "email", "sms", "none"]);
export const printer = z.strictObject({
  address: z.string().min(1).max(253),
  port: z.number().int().min(1).max(65535),
  protocol: z.enum(["escpos_tcp", "star_tcp", "bluetooth", "usb"]),
});
/** Provider credentials: per provider code, an object of string fields (merchant ids, keys). */
export const providerCredentials = z.record(
  z.string().regex(/^[a-z0-9_-]{1,32}$/),
  z.record(z.string(), z.string().max(2000)),
);
export const latitude = z.number().min(-90).max(90);
export const longitude = z.number().min(-180).max(180);
export const status = z.enum(["active", "inactive"]);
/** A free-form configuration object (stored as JSON). */
const jsonValue = z.json();
export const jsonObject = z.record(z.string(), jsonValue);
/**
 * A merchant's or store's payment configuration: free-form, but the keys the platform reads are checked when it is
 * saved, so the gateway sync never carries a bad one (docs/decisions/portal.md, "The tip ceiling in payment_config").
 */
export const paymentConfig = z.object({ tip_ceiling_percent: tipCeilingPercent.optional() }).catchall(jsonValue);
