import { z } from "zod";

/** ISO 4217 currencies we accept, with their minor units (amounts are integers in the minor unit). */
export const currencies: Record<string, number> = {
  JPY: 0,
  KRW: 0,
  USD: 2,
  EUR: 2,
  GBP: 2,
  AUD: 2,
  CAD: 2,
  CHF: 2,
  CNY: 2,
  HKD: 2,
  SGD: 2,
  TWD: 2,
  THB: 2,
};

/**
 * Which processing mode completes each method (the spec's method table). E-money is read and authorised by the
 * terminal's own reader (docs/decisions/gateway.md, "E-money is an external method").
 */
export const modeOfMethod = {
  qr_mpm: "pgw_processed",
  qr_cpm: "pgw_processed",
  credit_card: "external",
  emoney: "external",
  cash: "manual",
} as const;

export type PaymentMethodType = keyof typeof modeOfMethod;
export type ProcessingMode = (typeof modeOfMethod)[PaymentMethodType];
const methods = Object.keys(modeOfMethod) as [PaymentMethodType, ...PaymentMethodType[]];

export const MAX_AMOUNT = 100_000_000;
export const DEFAULT_EXPIRY_MINUTES = 30;
export const MAX_EXPIRY_MINUTES = 24 * 60;
export const MAX_TEXT = 255;
export const MAX_DESCRIPTION = 1000;
export const MAX_METADATA_BYTES = 8 * 1024;

/*
 * Each field's validator names the broken rule as its issue's message (`positive`, `iso_4217`): the parser
 * (`payment-intent.input.ts`) turns it into the error the gateway has always answered, field, constraint and sentence.
 */
const absentOr = (rule: string) => (issue: { input?: unknown }) =>
  issue.input === undefined || issue.input === null ? "required" : rule;

/** An amount in the currency's minor unit, 1 to 100,000,000. */
export const amount = z
  .number({ error: absentOr("integer") })
  .int({ error: "integer" })
  .min(1, { error: "positive" })
  .max(MAX_AMOUNT, { error: "max" });

/** Any letter case: the gateway stores the upper-case code. A pattern, so the reference refuses what we refuse. */
export const currency = z.string({ error: "iso_4217" }).regex(
  new RegExp(
    `^(?:${Object.keys(currencies)
      .map((code) => [...code].map((letter) => `[${letter}${letter.toLowerCase()}]`).join(""))
      .join("|")})$`,
  ),
  { error: "iso_4217" },
);

export const paymentMethodType = z.enum(methods, { error: "enum" });
export const paymentMethodTypes = z
  .array(z.enum(methods, { error: "enum" }), { error: "non_empty_array" })
  .min(1, { error: "non_empty_array" });
export const processingMode = z.enum(["pgw_processed", "external", "manual"], { error: "enum" });

/** Not blank; the length counts what was sent, spaces included. */
export const merchantRefId = z
  .string({ error: "required" })
  .regex(/\S/, { error: "required" })
  .max(MAX_TEXT, { error: "max_length" });

/** Free-form (the spec), bounded by its size as JSON, which no JSON Schema keyword says. */
export const metadata = z
  .record(z.string(), z.unknown(), { error: "object" })
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_METADATA_BYTES, { error: "max_size" });

export const expiresInMinutes = z
  .number({ error: "range" })
  .int({ error: "range" })
  .min(1, { error: "range" })
  .max(MAX_EXPIRY_MINUTES, { error: "range" });

export const optionalText = (max = MAX_TEXT) => z.string({ error: "string" }).max(max, { error: "string" }).nullish();

/**
 * POST /v1/payment-intents as the reference describes it: the fields' validators above, which the parser runs one
 * by one in this order. Which methods fit which mode, and `payment_method_types` being needed without a single
 * `payment_method_type`, are rules across fields the parser checks after them.
 */
export const paymentIntentCreate = z.object({
  amount,
  currency,
  payment_method_types: paymentMethodTypes.nullish(),
  payment_methods_types: paymentMethodTypes.nullish().meta({ description: "The spec's older spelling" }),
  payment_method_type: paymentMethodType.nullish(),
  processing_mode: processingMode.nullish(),
  merchant_ref_id: merchantRefId,
  merchant_store_id: optionalText(),
  merchant_terminal_id: optionalText(),
  order_id: optionalText(),
  description: optionalText(MAX_DESCRIPTION),
  metadata: metadata.nullish(),
  expires_in_minutes: expiresInMinutes.nullish(),
});

/**
 * POST /v1/payment-intents/{id}/capture: an amount, if sent, is the intent's own; `amount_to_capture` up to the
 * intent's `amount_capturable` (`captureOf`).
 */
export const paymentIntentCapture = z.object({ amount: amount.nullish(), amount_to_capture: amount.nullish() });

/** POST /v1/payment-intents/{id}/refund: a part of the amount, or all of it when absent. */
export const paymentIntentRefund = z.object({
  amount: amount.nullish(),
  reason: optionalText(),
  merchant_ref_id: optionalText(),
});
