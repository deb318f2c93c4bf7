import { z } from "zod";
import { isCalendarDate } from "./business-day";

/** A business date, YYYY-MM-DD, that exists. */
export const businessDate = z.string().refine(isCalendarDate, { message: "must be a date written YYYY-MM-DD" });

/** POST /settlements. `staff_code` is required from a terminal: the store manager (or above) it acts for. */
export const settlementCreate = z.strictObject({
  store_id: z.number().int().positive().optional(),
  date: businessDate,
  auto_close: z.boolean().optional(),
  staff_code: z.string().optional(),
});

export type SettlementCreate = z.output<typeof settlementCreate>;

/** POST /settlements/{id}/close. */
export const settlementClose = z.strictObject({ staff_code: z.string().optional() });

/** A store's day to read: today by default. */
export const storeDayQuery = z.strictObject({
  store_id: z.number().int().positive().optional(),
  date: businessDate.optional(),
});

/** The list's filters: `start_date` and `end_date` are inclusive business dates. */
export const settlementFilter = z
  .strictObject({
    start_date: businessDate.optional(),
    end_date: businessDate.optional(),
    status: z.enum(["open", "closed"]).optional(),
  })
  .refine((filter) => !filter.start_date || !filter.end_date || filter.start_date <= filter.end_date, {
    message: "end_date must not be before start_date",
    path: ["end_date"],
  });

export type SettlementFilter = z.output<typeof settlementFilter>;
