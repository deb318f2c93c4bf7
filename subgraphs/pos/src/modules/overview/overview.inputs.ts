import { z } from "zod";
import { businessDate } from "../settlements/settlement.inputs";

/** The overview to read: the caller's whole reach or one store, today by default. */
export const overviewQuery = z.strictObject({
  store_id: z.number().int().positive().optional(),
  date: businessDate.optional(),
});
