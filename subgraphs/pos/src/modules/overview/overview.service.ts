import {
  addDays,
  type Caller,
  dayToRead,
  dayWindow,
  parseInput,
  requireTier,
  roles,
  STORE_TIME_ZONE,
} from "@pos-cloud/common";
import { givenArguments } from "../list-arguments";
import type { PaymentFigures } from "../payments";
import type { SettlementService } from "../settlements";
import type { StoreAccess } from "../stores";
import { overviewQuery } from "./overview.inputs";

export type OverviewService = ReturnType<typeof overviewService>;

/** How many stores the overview names among those that failed most. */
const FAILING_STORES = 5;

/**
 * The business at a glance over the stores a person reaches: the money as the stores' days count it (the settlements'
 * own count, so it never disagrees with a store's day), and the payments' figures aggregated in SQL.
 */
export function overviewService(
  settlements: SettlementService,
  figures: PaymentFigures,
  access: StoreAccess,
  clock: () => Date,
) {
  return {
    async salesOverview(caller: Caller, args: { store_id?: number | null; date?: string | null }) {
      requireTier(caller, roles.STORE_MANAGER);
      const query = parseInput(overviewQuery, givenArguments(args));
      const date = dayToRead(query.date, clock());
      const scope = await access.storeScope(caller, query.store_id);
      const { start, end } = dayWindow(date, STORE_TIME_ZONE);
      const [today, last_week, by_hour, outcomes, failing_stores] = [
        await settlements.scopeDay(scope, date),
        await settlements.scopeDay(scope, addDays(date, -7)),
        await figures.byHour(scope, start, end, STORE_TIME_ZONE),
        await figures.outcomes(scope, start, end),
        await figures.failingStores(scope, start, end, FAILING_STORES),
      ];
      return {
        date,
        timezone: STORE_TIME_ZONE,
        starts_at: start,
        ends_at: end,
        store_id: query.store_id ?? null,
        today,
        last_week,
        by_hour,
        outcomes,
        failing_stores,
      };
    },
  };
}
