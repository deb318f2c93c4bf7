import { partnerPermissions } from "@pos-cloud/common";
import { z } from "zod";

/** The most stores one key may be restricted to. */
export const MAX_KEY_STORES = 100;

/**
 * What a new key is restricted to (docs/decisions/gateway.md, "Restricted API keys"): absent fields leave it
 * unrestricted; a list given may not be empty, since an empty restriction would read as none.
 */
export const apiKeyRestriction = z.strictObject({
  permissions: z
    .array(z.enum(partnerPermissions))
    .min(1)
    .max(partnerPermissions.length)
    .refine((names) => new Set(names).size === names.length, "each permission once")
    .nullish()
    .describe(`The operations the key may call, of ${partnerPermissions.join(", ")}; absent: every one.`),
  store_ids: z
    .array(z.number().int().min(1).max(2_147_483_647))
    .min(1)
    .max(MAX_KEY_STORES)
    .refine((ids) => new Set(ids).size === ids.length, "each store once")
    .nullish()
    .describe("The ids of the partner's stores the key may name; absent: every store of the partner."),
});

export type ApiKeyRestriction = { permissions: string[]; store_ids: number[] };
