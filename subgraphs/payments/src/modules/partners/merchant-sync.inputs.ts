import { invalidField, tipCeilingPercent } from "@pos-cloud/common";
import { z } from "zod";

export const MAX_MERCHANTS = 100;
/** Stores in one sync, all merchants together; one merchant's list is bounded the same. */
export const MAX_STORES = 1000;
export const MAX_PROVIDER_CONFIGS = 20;

/*
 * The parser (`parseSyncInput`, below) runs these one value at a time and answers each item's own path
 * (`merchants.0.stores.2.store_id`), so it keeps its walk; the body below puts them together for the reference.
 */

/** A platform id as PostgreSQL's integer holds it. */
export const syncId = z.number().int().min(1).max(2_147_483_647);
export const syncText = z.string().min(1).max(255);
export const syncFlag = z.boolean();
/** Any letter case; stored in lower case. */
export const providerCode = z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/);

/*
 * The spec shows two namings of each item and we accept both, even mixed within one item: variant A's `id`,
 * `code` and `payment_processor_configs[].provider`, variant B's `merchant_id`/`store_id`, `*_code` and
 * `provider_configs[].provider_code`. Where both are sent, B's wins; an item needs one of its two key fields.
 */
const oneOfTwo = (shape: z.ZodRawShape, variantB: string, variantA: string, key: z.ZodType) =>
  z.union([
    z.object({ ...shape, [variantB]: key }),
    z.object({ ...shape, [variantB]: z.null().optional(), [variantA]: key }),
  ]);

const providerConfig = oneOfTwo(
  { credentials: z.record(z.string(), z.unknown()), is_active: syncFlag.nullish() },
  "provider_code",
  "provider",
  providerCode,
);
const configs = z.array(providerConfig).max(MAX_PROVIDER_CONFIGS).nullish();

const store = oneOfTwo(
  {
    store_code: syncText.nullish(),
    code: syncText.nullish(),
    name: syncText.nullish(),
    is_active: syncFlag.nullish(),
    tip_ceiling_percent: tipCeilingPercent.nullish(),
    provider_configs: configs,
    payment_processor_configs: configs,
  },
  "store_id",
  "id",
  syncId,
);

const merchant = oneOfTwo(
  {
    merchant_code: syncText.nullish(),
    code: syncText.nullish(),
    name: syncText.nullish(),
    /** Our addition: the PSP the portal placed the merchant under, sent by the platform's sync. */
    psp_id: syncId.nullish(),
    stores: z.array(store).max(MAX_STORES).optional(),
  },
  "merchant_id",
  "id",
  syncId,
);

/**
 * POST /v1/sync/merchants: at most 100 merchants and 1000 stores in all (the total is the parser's, no JSON Schema
 * keyword counts across items).
 */
export const merchantSync = z.object({
  client_partner_id: syncId.optional(),
  merchants: z.array(merchant).max(MAX_MERCHANTS),
});

/** One merchant of a sync request, whichever of the spec's two body variants it came in. */
export interface SyncedMerchant {
  id: number;
  merchant_code?: string;
  name?: string;
  /** Our addition, sent by the platform's sync: the PSP the portal placed the merchant under. */
  psp_id?: number;
  stores: SyncedStore[];
}

export interface SyncedStore {
  id: number;
  store_code?: string;
  name?: string;
  /** Our addition to both variants: false when the tenant is deactivated; absent leaves it as it is. */
  is_active?: boolean;
  /** Our addition: the store's tip ceiling at capture, in percent of the amount; absent leaves it as it is. */
  tip_ceiling_percent?: number;
  provider_configs: { provider_code: string; credentials: Record<string, unknown>; is_active: boolean }[];
}

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function list(value: unknown, field: string, max: number): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalidField(field, "array", `${field} must be an array`);
  if (value.length > max) throw invalidField(field, "max_items", `${field} holds at most ${max} items`);
  return value;
}

function object(value: unknown, field: string): Fields {
  if (!isObject(value)) throw invalidField(field, "object", `${field} must be an object`);
  return value;
}

/** Runs one value's validator (above), answering with the item's own path. */
function checked<T extends z.ZodType>(
  schema: T,
  value: unknown,
  field: string,
  constraint: string,
  message: string,
): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidField(field, constraint, message);
  return result.data;
}

const id = (value: unknown, field: string): number =>
  checked(syncId, value, field, "positive_integer", `${field} must be a positive integer`);

function flag(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  return checked(syncFlag, value, field, "boolean", `${field} must be a boolean`);
}

function text(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  return checked(syncText, value, field, "string", `${field} must be a string of 1 to 255 characters`);
}

/**
 * Variant A names ids `id` and providers `payment_processor_configs[].provider`; variant B names them `merchant_id`,
 * `store_id` and `provider_configs[].provider_code`. Each item may use either naming.
 */
export function parseSyncInput(input: unknown): { client_partner_id?: number; merchants: SyncedMerchant[] } {
  const body = object(input, "body");
  const client_partner_id =
    body.client_partner_id === undefined ? undefined : id(body.client_partner_id, "client_partner_id");
  if (body.merchants === undefined) throw invalidField("merchants", "required", "merchants is required");
  let storeCount = 0;
  const merchants = list(body.merchants, "merchants", MAX_MERCHANTS).map((raw, m) => {
    const at = `merchants.${m}`;
    const merchant = object(raw, at);
    const stores = list(merchant.stores, `${at}.stores`, MAX_STORES).map((rawStore, s) => {
      const storeAt = `${at}.stores.${s}`;
      const store = object(rawStore, storeAt);
      const configs = store.provider_configs ?? store.payment_processor_configs;
      return {
        id: id(store.store_id ?? store.id, `${storeAt}.store_id`),
        store_code: text(store.store_code ?? store.code, `${storeAt}.store_code`),
        name: text(store.name, `${storeAt}.name`),
        is_active: flag(store.is_active, `${storeAt}.is_active`),
        tip_ceiling_percent:
          store.tip_ceiling_percent === undefined || store.tip_ceiling_percent === null
            ? undefined
            : checked(
                tipCeilingPercent,
                store.tip_ceiling_percent,
                `${storeAt}.tip_ceiling_percent`,
                "range",
                "tip_ceiling_percent must be an integer from 0 to 100",
              ),
        provider_configs: list(configs, `${storeAt}.provider_configs`, MAX_PROVIDER_CONFIGS).map((rawConfig, c) => {
          const configAt = `${storeAt}.provider_configs.${c}`;
          const config = object(rawConfig, configAt);
          const code = checked(
            providerCode,
            config.provider_code ?? config.provider,
            `${configAt}.provider_code`,
            "provider_code",
            "provider_code must be a provider code",
          );
          return {
            provider_code: code.toLowerCase(),
            credentials: object(config.credentials, `${configAt}.credentials`),
            is_active: flag(config.is_active, `${configAt}.is_active`) ?? true,
          };
        }),
      };
    });
    storeCount += stores.length;
    if (storeCount > MAX_STORES) throw invalidField("merchants", "max_stores", `at most ${MAX_STORES} stores per sync`);
    return {
      id: id(merchant.merchant_id ?? merchant.id, `${at}.merchant_id`),
      merchant_code: text(merchant.merchant_code ?? merchant.code, `${at}.merchant_code`),
      name: text(merchant.name, `${at}.name`),
      psp_id:
        merchant.psp_id === undefined || merchant.psp_id === null ? undefined : id(merchant.psp_id, `${at}.psp_id`),
      stores,
    };
  });
  return { client_partner_id, merchants };
}
