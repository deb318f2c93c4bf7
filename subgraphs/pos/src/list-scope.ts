import { Prisma } from "./generated/prisma/client";

/** What a list may show a caller: one store, one merchant's stores, or every store (a system operator). */
export type ListScope = { store_id?: number; merchant_id?: number };

/** What a figure over many stores covers: a list's scope, or the stores the portal lists for a PSP or an area. */
export type StoreScope = ListScope & { store_ids?: number[] };

/** A scope as a SQL condition on the rows of `table` (an alias with `store_id` and `merchant_id`). */
export function scopeCondition(scope: StoreScope, table: string): Prisma.Sql {
  const column = (name: string) => Prisma.raw(`${table}.${name}`);
  const conditions = [
    scope.store_id === undefined ? null : Prisma.sql`${column("store_id")} = ${scope.store_id}`,
    scope.merchant_id === undefined ? null : Prisma.sql`${column("merchant_id")} = ${scope.merchant_id}`,
    scope.store_ids === undefined ? null : Prisma.sql`${column("store_id")} = ANY(${scope.store_ids}::int[])`,
  ].filter((condition) => condition !== null);
  return conditions.length === 0 ? Prisma.sql`TRUE` : Prisma.join(conditions, " AND ");
}
