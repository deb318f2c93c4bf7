import { invalidField } from "@pos-cloud/common";

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

/** Which processing mode completes each method (the spec's method table). */
export const modeOfMethod = {
  qr_mpm: "pgw_processed",
  qr_cpm: "pgw_processed",
  credit_card: "external",
  cash: "manual",
} as const;

export type PaymentMethodType = keyof typeof modeOfMethod;
export type ProcessingMode = (typeof modeOfMethod)[PaymentMethodType];
const modes = new Set<string>(["pgw_processed", "external", "manual"]);

export const MAX_AMOUNT = 100_000_000;
export const DEFAULT_EXPIRY_MINUTES = 30;
const MAX_EXPIRY_MINUTES = 24 * 60;
const MAX_TEXT = 255;
const MAX_DESCRIPTION = 1000;
const MAX_METADATA_BYTES = 8 * 1024;

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
const isMethod = (value: unknown): value is PaymentMethodType =>
  typeof value === "string" && Object.hasOwn(modeOfMethod, value);

function optionalText(body: Fields, field: string, max = MAX_TEXT): string | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.length > max) {
    throw invalidField(field, "string", `${field} must be a string of at most ${max} characters`);
  }
  return value;
}

export function parseAmount(value: unknown, field = "amount"): number {
  if (value === undefined || value === null) throw invalidField(field, "required", `${field} is required`);
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw invalidField(field, "integer", `${field} must be an integer in the currency's minor unit`);
  }
  if (value <= 0) throw invalidField(field, "positive", `${field} must be greater than 0`);
  if (value > MAX_AMOUNT) throw invalidField(field, "max", `${field} must be at most ${MAX_AMOUNT}`);
  return value;
}

function parseMethods(body: Fields): { types: PaymentMethodType[]; type: PaymentMethodType | null } {
  const typeValue = body.payment_method_type;
  let type: PaymentMethodType | null = null;
  if (typeValue !== undefined && typeValue !== null) {
    if (!isMethod(typeValue)) {
      throw invalidField(
        "payment_method_type",
        "enum",
        `payment_method_type must be one of ${Object.keys(modeOfMethod)}`,
      );
    }
    type = typeValue;
  }
  const field = body.payment_method_types !== undefined ? "payment_method_types" : "payment_methods_types";
  const listValue = body[field];
  if (listValue === undefined || listValue === null) {
    if (!type) throw invalidField("payment_method_types", "required", "payment_method_types is required");
    return { types: [type], type };
  }
  if (!Array.isArray(listValue) || listValue.length === 0) {
    throw invalidField(field, "non_empty_array", `${field} must be a non-empty array`);
  }
  if (!listValue.every(isMethod)) {
    throw invalidField(field, "enum", `${field} may hold only ${Object.keys(modeOfMethod)}`);
  }
  const types = [...new Set(listValue)];
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
    if (typeof stated !== "string" || !modes.has(stated)) {
      throw invalidField("processing_mode", "enum", "processing_mode must be pgw_processed, external or manual");
    }
    if (implied.size !== 1 || !implied.has(stated as ProcessingMode)) {
      throw invalidField("processing_mode", "matches_method", `processing_mode ${stated} does not fit ${types}`);
    }
    return stated as ProcessingMode;
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
  const currencyValue = input.currency;
  if (typeof currencyValue !== "string" || !Object.hasOwn(currencies, currencyValue.toUpperCase())) {
    throw invalidField("currency", "iso_4217", `currency must be one of ${Object.keys(currencies)}`);
  }
  const { types, type } = parseMethods(input);
  const processing_mode = parseMode(input, type ? [type] : types);
  const merchant_ref_id = input.merchant_ref_id;
  if (typeof merchant_ref_id !== "string" || merchant_ref_id.trim().length === 0) {
    throw invalidField("merchant_ref_id", "required", "merchant_ref_id is required");
  }
  if (merchant_ref_id.length > MAX_TEXT) {
    throw invalidField("merchant_ref_id", "max_length", `merchant_ref_id must be at most ${MAX_TEXT} characters`);
  }
  const metadata = input.metadata ?? {};
  if (!isObject(metadata)) throw invalidField("metadata", "object", "metadata must be an object");
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) {
    throw invalidField("metadata", "max_size", `metadata must be at most ${MAX_METADATA_BYTES} bytes as JSON`);
  }
  const expires = input.expires_in_minutes ?? DEFAULT_EXPIRY_MINUTES;
  if (typeof expires !== "number" || !Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRY_MINUTES) {
    throw invalidField(
      "expires_in_minutes",
      "range",
      `expires_in_minutes must be an integer 1 to ${MAX_EXPIRY_MINUTES}`,
    );
  }
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
