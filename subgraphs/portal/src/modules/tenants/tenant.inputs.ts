import { printable, printableJson } from "@pos-cloud/common";
import { z } from "zod";
import {
  address,
  code,
  email,
  jsonObject,
  latitude,
  longitude,
  name,
  paymentConfig,
  paymentMethod,
  phone,
  printer,
  providerCredentials,
  receiptDelivery,
  status,
} from "../../validation";

const hhmm = z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, "HH:MM, 24-hour");
const day = z.enum(["mon", "tue", "wed", "thu", "fri", "sat", "sun"]);

export const pspInput = z.strictObject({
  code,
  name,
  contact_email: email.optional(),
  contact_phone: phone.optional(),
});

const merchantFields = {
  code,
  name,
  legal_name: printable(z.string().max(200)).optional(),
  contact_email: email.optional(),
  contact_phone: phone.optional(),
  address: address.optional(),
  tax_id: z.string().max(40).optional(),
  logo_url: z
    .url({ protocol: /^https$/ })
    .max(2000)
    .optional(),
  branding: z
    .strictObject({
      primary_color: z
        .string()
        .regex(/^#[0-9a-fA-F]{6}$/)
        .optional(),
      secondary_color: z
        .string()
        .regex(/^#[0-9a-fA-F]{6}$/)
        .optional(),
    })
    .optional(),
  payment_config: paymentConfig.optional(),
  default_payment_methods: z.array(paymentMethod).max(10).optional(),
  provider_credentials: providerCredentials.optional(),
  receipt_template: printable(z.string().max(10_000)).optional(),
  invoice_config: printableJson(jsonObject).optional(),
  settlement_frequency: z.enum(["daily", "weekly", "monthly"]).optional(),
  terminal_limit_per_store: z.number().int().min(1).max(1000).optional(),
};

export const merchantCreate = z.strictObject({ psp_id: z.number().int().positive(), ...merchantFields });
export const merchantUpdate = z.strictObject({ ...merchantFields, status: status.optional() }).partial();

const storeFields = {
  code,
  name,
  address: address.optional(),
  contact_email: email.optional(),
  contact_phone: phone.optional(),
  latitude: latitude.optional(),
  longitude: longitude.optional(),
  operating_hours: z.partialRecord(day, z.array(z.strictObject({ open: hhmm, close: hhmm })).max(4)).optional(),
  payment_config: paymentConfig.optional(),
  printer_config: printer.optional(),
  // Its header and footer are printed.
  receipt_settings: printableJson(jsonObject).optional(),
  enabled_payment_methods: z.array(paymentMethod).max(10).optional(),
  provider_credentials: providerCredentials.optional(),
  receipt_delivery: z.array(receiptDelivery).max(4).optional(),
  tax_rate: z.number().min(0).max(100).multipleOf(0.01).optional(),
  table_assignments: z.array(z.string().min(1).max(20)).max(500).optional(),
};

export const storeCreate = z.strictObject({ merchant_id: z.number().int().positive(), ...storeFields });
export const storeUpdate = z.strictObject({ ...storeFields, status: status.optional() }).partial();
