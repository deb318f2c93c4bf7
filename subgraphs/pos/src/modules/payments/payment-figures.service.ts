import type { StoreScope } from "../../list-scope";
import type { OutcomeRow, PaymentFiguresRepository } from "./payment-figures.repository";

export type PaymentFigures = ReturnType<typeof paymentFigures>;

const outcomes: OutcomeRow["outcome"][] = ["succeeded", "failed", "declined", "expired", "in_flight"];

/**
 * What a scope's payments of a span came to, for the business overview: sales by hour, how many succeeded or not,
 * and the stores that failed most. The caller's reach was checked by whoever built the scope.
 */
export function paymentFigures(figures: PaymentFiguresRepository) {
  return {
    /** Every hour of the day (0–23) with what was completed in it, zeros included. */
    async byHour(scope: StoreScope, start: Date, end: Date, timeZone: string) {
      const rows = await figures.byHour(scope, start, end, timeZone);
      return Array.from({ length: 24 }, (_, hour) => {
        const row = rows.find((found) => found.hour === hour);
        return { hour, amount: row?.amount ?? 0, count: row?.count ?? 0 };
      });
    },

    /** How many payments succeeded, failed, were declined or expired, or are in flight; the rate of those decided. */
    async outcomes(scope: StoreScope, start: Date, end: Date) {
      const rows = await figures.outcomes(scope, start, end);
      const count = Object.fromEntries(
        outcomes.map((outcome) => [outcome, rows.find((row) => row.outcome === outcome)?.count ?? 0]),
      ) as Record<OutcomeRow["outcome"], number>;
      const decided = count.succeeded + count.failed + count.declined + count.expired;
      return { ...count, success_rate: decided === 0 ? null : count.succeeded / decided };
    },

    failingStores: (scope: StoreScope, start: Date, end: Date, limit: number) =>
      figures.failingStores(scope, start, end, limit),
  };
}
