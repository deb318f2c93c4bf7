import { invalidField } from "@pos-cloud/common";
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
 * (`parseCreateInput`, below) turns it into the error the gateway has always answered, field, constraint and sentence.
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

export interface CreatePaymentIntentInput {
  amount: number;
  currency: string;
  payment_method_types: PaymentMethodType[];
  payment_method_type: PaymentMethodType | null;
  processing_mode: ProcessingMode;
  merchant_ref_id: string;
  merchant_store_id: string | null;
  merchant_terminal_id: string | null;
  order_id: string | null;
  description: string | null;
  metadata: Record<string, unknown>;
  expires_in_minutes: number;
}

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Runs a field's validator (above); its first issue names the broken rule, and `sentences`
 * the message the gateway answers for it.
 */
function check<T extends z.ZodType>(
  schema: T,
  value: unknown,
  field: string,
  sentences: Record<string, string>,
): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const rule = result.error.issues[0]?.message ?? "invalid";
  throw invalidField(field, rule, sentences[rule] ?? `${field} is invalid`);
}

type TextField = "merchant_store_id" | "merchant_terminal_id" | "order_id" | "description";

/** The create schema's own validator of the field: building a zod schema per request cost more than parsing. */
function textField(body: Fields, field: TextField, max = MAX_TEXT): string | null {
  const sentence = `${field} must be a string of at most ${max} characters`;
  return check(paymentIntentCreate.shape[field], body[field], field, { string: sentence }) ?? null;
}

export function parseAmount(value: unknown, field = "amount"): number {
  return check(amount, value, field, {
    required: `${field} is required`,
    integer: `${field} must be an integer in the currency's minor unit`,
    positive: `${field} must be greater than 0`,
    max: `${field} must be at most ${MAX_AMOUNT}`,
  });
}

function parseMethods(body: Fields): { types: PaymentMethodType[]; type: PaymentMethodType | null } {
  const typeValue = body.payment_method_type;
  let type: PaymentMethodType | null = null;
  if (typeValue !== undefined && typeValue !== null) {
    type = check(paymentMethodType, typeValue, "payment_method_type", {
      enum: `payment_method_type must be one of ${Object.keys(modeOfMethod)}`,
    });
  }
  const field = body.payment_method_types !== undefined ? "payment_method_types" : "payment_methods_types";
  const listValue = body[field];
  if (listValue === undefined || listValue === null) {
    if (!type) throw invalidField("payment_method_types", "required", "payment_method_types is required");
    return { types: [type], type };
  }
  const listed = check(paymentMethodTypes, listValue, field, {
    non_empty_array: `${field} must be a non-empty array`,
    enum: `${field} may hold only ${Object.keys(modeOfMethod)}`,
  });
  const types = [...new Set(listed)];
  if (type && !types.includes(type)) {
    throw invalidField(
      "payment_method_type",
      "in_payment_method_types",
      "payment_method_type must be one of the types",
    );
  }
  return { types, type: type ?? (types.length === 1 ? types[0]! : null) };
}

/**
 * The mode follows from the method: cash is manual, credit_card external, QR pgw_processed. A stated mode must
 * agree with every allowed method; without one, QR-only (or a single method) decides it.
 */
function parseMode(body: Fields, types: PaymentMethodType[]): ProcessingMode {
  const stated = body.processing_mode;
  const implied = new Set(types.map((type) => modeOfMethod[type]));
  if (stated !== undefined && stated !== null) {
    const mode = check(processingMode, stated, "processing_mode", {
      enum: "processing_mode must be pgw_processed, external or manual",
    });
    if (implied.size !== 1 || !implied.has(mode)) {
      throw invalidField("processing_mode", "matches_method", `processing_mode ${mode} does not fit ${types}`);
    }
    return mode;
  }
  const [only] = implied;
  if (implied.size !== 1 || !only) {
    throw invalidField("processing_mode", "required", "methods of different modes need payment_method_type");
  }
  return only;
}

export function parseCreateInput(input: unknown): CreatePaymentIntentInput {
  if (!isObject(input)) throw invalidField("body", "object", "the request body must be a JSON object");
  const amount = parseAmount(input.amount);
  const currencyValue = check(currency, input.currency, "currency", {
    iso_4217: `currency must be one of ${Object.keys(currencies)}`,
  });
  const { types, type } = parseMethods(input);
  const processing_mode = parseMode(input, type ? [type] : types);
  const merchant_ref_id = check(merchantRefId, input.merchant_ref_id, "merchant_ref_id", {
    required: "merchant_ref_id is required",
    max_length: `merchant_ref_id must be at most ${MAX_TEXT} characters`,
  });
  // The object as sent is kept (the validator's copy would be the same keys).
  const sentMetadata = (input.metadata ?? {}) as Fields;
  check(metadata, sentMetadata, "metadata", {
    object: "metadata must be an object",
    max_size: `metadata must be at most ${MAX_METADATA_BYTES} bytes as JSON`,
  });
  const expires = check(expiresInMinutes, input.expires_in_minutes ?? DEFAULT_EXPIRY_MINUTES, "expires_in_minutes", {
    range: `expires_in_minutes must be an integer 1 to ${MAX_EXPIRY_MINUTES}`,
  });
  return {
    amount,
    currency: currencyValue.toUpperCase(),
    payment_method_types: types,
    payment_method_type: type,
    processing_mode,
    merchant_ref_id,
    merchant_store_id: textField(input, "merchant_store_id"),
    merchant_terminal_id: textField(input, "merchant_terminal_id"),
    order_id: textField(input, "order_id"),
    description: textField(input, "description", MAX_DESCRIPTION),
    metadata: sentMetadata,
    expires_in_minutes: expires,
  };
}
