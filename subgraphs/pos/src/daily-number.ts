import type { Prisma } from "./generated/prisma/client";

/** The business day of a moment in Asia/Tokyo (UTC+9, the spec's business clock), as YYYYMMDD. */
export const businessDay = (at: Date) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo" }).format(at).replaceAll("-", "");

/** What each kind's numbers start with: none for orders, `B` for bills, `R` for receipts. */
const prefixes = { order: "", bill: "B", receipt: "R" } as const;

/**
 * The next readable number of a store's business day, `20261124-0007` (orders), `B20261124-0007` (bills) or
 * `R20261124-0007` (receipts). The counter row is taken by an upsert inside the caller's transaction, so concurrent
 * requests wait for each other and never share a number, and a rolled-back request gives its number back.
 */
export async function nextDailyNumber(
  tx: Prisma.TransactionClient,
  storeId: number,
  kind: keyof typeof prefixes,
  at: Date,
) {
  const day = businessDay(at);
  const [row] = await tx.$queryRaw<{ last_number: number }[]>`
    INSERT INTO daily_counters (store_id, business_date, kind, last_number) VALUES (${storeId}, ${day}, ${kind}, 1)
    ON CONFLICT (store_id, business_date, kind) DO UPDATE SET last_number = daily_counters.last_number + 1
    RETURNING last_number`;
  return `${prefixes[kind]}${day}-${String(row!.last_number).padStart(4, "0")}`;
}
