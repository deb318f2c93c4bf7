import { z } from "zod";

/** A platform id as PostgreSQL's integer holds it. */
const entityId = z.number().int().min(1).max(2_147_483_647);

/**
 * POST /api/v1/partners/{id}/grants: a whole merchant (all its stores, now and later) without `store_ids`, else
 * those of its stores.
 */
export const grantCreate = z.strictObject({
  merchant_id: entityId,
  store_ids: z.array(entityId).min(1).max(100).nullish(),
});
