import { isCalendarDate, resolutionNote } from "@pos-cloud/common";
import { z } from "zod";

/** A business date, YYYY-MM-DD, that exists. */
export const businessDate = z.string().refine(isCalendarDate, { message: "must be a date written YYYY-MM-DD" });

/**
 * Who approves a settlement: required from a terminal, the store manager (or above) it acts for, with their secret (a
 * login id is printed on receipts); a user names nobody, or themselves, or another manager with that one's secret.
 */
const approver = {
  staff_code: z.string().optional(),
  staff_pin: z.string().min(1).max(128).nullish(),
};

/** POST /settlements. */
export const settlementCreate = z.strictObject({
  store_id: z.number().int().positive().optional(),
  date: businessDate,
  auto_close: z.boolean().optional(),
  ...approver,
});

export type SettlementCreate = z.output<typeof settlementCreate>;

/** POST /settlements/{id}/close. */
export const settlementClose = z.strictObject(approver);

export type SettlementApprover = z.output<typeof settlementClose>;

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

/** A store's day's card settlement differences closed, all at once, with what was done. */
export const cardDifferencesResolve = z.strictObject({
  settlement_id: z.string(),
  note: resolutionNote,
});
