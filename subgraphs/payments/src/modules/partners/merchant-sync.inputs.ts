import { tipCeilingPercent } from "@pos-cloud/common";
import { z } from "zod";

export const MAX_MERCHANTS = 100;
/** Stores in one sync, all merchants together; one merchant's list is bounded the same. */
export const MAX_STORES = 1000;
export const MAX_PROVIDER_CONFIGS = 20;

/*
 * The parser (`merchant-sync.input.ts`) runs these one value at a time and answers each item's own path
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
