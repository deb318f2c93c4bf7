import { invalidField } from "@pos-cloud/common";
import { z } from "zod";

/** How old a sale recorded offline may be when it arrives, unless OFFLINE_SALES_WINDOW_HOURS says otherwise. */
export const DEFAULT_OFFLINE_WINDOW_HOURS = 72;

/**
 * How far a terminal's clock may run ahead of or behind the platform's: an `occurred_at` up to this much in the future
 * is taken as now, and one at most this much in the past is a live sale, not one recorded offline (docs/decisions.md,
 * "Sales recorded offline (issue 34)").
 */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** The optional `occurred_at` of an order, a bill or a cash payment: when the sale happened, with its offset. */
export const occurredAt = z.date().optional();

/** When a sale happened and whether it was recorded offline, from what the terminal says and when it arrived. */
export interface SaleTime {
  occurred_at: Date;
  recorded_offline: boolean;
}

/**
 * A sale's time: `occurred_at` when given, within `windowHours` before now and at most the clock skew after it (400
 * `occurred_at` otherwise, before anything is written); `now` (the moment the record is received) when not.
 */
export function saleTimes(clock: () => Date, windowHours = DEFAULT_OFFLINE_WINDOW_HOURS) {
  return (given: Date | undefined, now = clock()): SaleTime => {
    if (given === undefined) return { occurred_at: now, recorded_offline: false };
    const age = now.getTime() - given.getTime();
    if (age < -CLOCK_SKEW_MS)
      throw invalidField("occurred_at", "not_future", "occurred_at is later than now (beyond the clock skew allowed)");
    if (age > windowHours * 3_600_000)
      throw invalidField("occurred_at", "within_window", `occurred_at is more than ${windowHours} hours ago`);
    return { occurred_at: age < 0 ? now : given, recorded_offline: age > CLOCK_SKEW_MS };
  };
}

export type SaleTimes = ReturnType<typeof saleTimes>;
