import { invalidField } from "@pos-cloud/common";
import type { z } from "zod";
import {
  amount as amountSchema,
  currencies,
  currency as currencySchema,
  DEFAULT_EXPIRY_MINUTES,
  expiresInMinutes,
  MAX_AMOUNT,
  MAX_DESCRIPTION,
  MAX_EXPIRY_MINUTES,
  MAX_METADATA_BYTES,
  MAX_TEXT,
  merchantRefId,
  metadata as metadataSchema,
  modeOfMethod,
  type PaymentMethodType,
  type ProcessingMode,
  paymentIntentCreate,
  paymentMethodType,
  paymentMethodTypes,
  processingMode,
} from "./payment-intent.inputs";

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
 * Runs a field's validator (`payment-intent.inputs.ts`); its first issue names the broken rule, and `sentences`
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
function optionalText(body: Fields, field: TextField, max = MAX_TEXT): string | null {
  const sentence = `${field} must be a string of at most ${max} characters`;
  return check(paymentIntentCreate.shape[field], body[field], field, { string: sentence }) ?? null;
}

export function parseAmount(value: unknown, field = "amount"): number {
  return check(amountSchema, value, field, {
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
  const currencyValue = check(currencySchema, input.currency, "currency", {
    iso_4217: `currency must be one of ${Object.keys(currencies)}`,
  });
  const { types, type } = parseMethods(input);
  const processing_mode = parseMode(input, type ? [type] : types);
  const merchant_ref_id = check(merchantRefId, input.merchant_ref_id, "merchant_ref_id", {
    required: "merchant_ref_id is required",
    max_length: `merchant_ref_id must be at most ${MAX_TEXT} characters`,
  });
  // The object as sent is kept (the validator's copy would be the same keys).
  const metadata = (input.metadata ?? {}) as Fields;
  check(metadataSchema, metadata, "metadata", {
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
    merchant_store_id: optionalText(input, "merchant_store_id"),
    merchant_terminal_id: optionalText(input, "merchant_terminal_id"),
    order_id: optionalText(input, "order_id"),
    description: optionalText(input, "description", MAX_DESCRIPTION),
    metadata,
    expires_in_minutes: expires,
  };
}
