import type { SalesOverviewQuery } from "../../graphql/graphql";

export type Overview = SalesOverviewQuery["salesOverview"];

/** Payments of the overview's day, in the payments search (`extra` narrows it further). */
export function paymentsLink(overview: Overview, extra: Record<string, string> = {}) {
  const params = new URLSearchParams({ from: overview.date, to: overview.date, ...extra });
  if (overview.store_id !== null && !params.has("store")) params.set("store", String(overview.store_id));
  return `/payments?${params}`;
}
