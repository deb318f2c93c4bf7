import { type Caller, invalidField, type PageArgs, parseCursorPage, parseInput } from "@pos-cloud/common";
import type { z } from "zod";
import type { StoreAccess } from "./stores/store-access.service";

/** The arguments GraphQL was given a value for: an argument left out or null is as absent to a zod schema. */
export const givenArguments = (args: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null && value !== undefined));

/** A time-ordered list's arguments as GraphQL passes them: the store, the page and the list's own filter. */
export type ListArguments = { store_id?: number | null; after?: string | null } & PageArgs & Record<string, unknown>;

/**
 * A POS list's arguments checked (orders, bills, payments): the filter (unset values left out, `to` after `from`
 * where it has them), the cursor page, and the stores the caller may list.
 */
export async function parseListArguments<Filter extends { from?: Date; to?: Date; [name: string]: unknown }>(
  access: StoreAccess,
  caller: Caller,
  filterSchema: z.ZodType<Filter>,
  args: ListArguments,
) {
  const { store_id, limit, offset, after, ...given } = args;
  const filter = parseInput(filterSchema, givenArguments(given));
  if (filter.from && filter.to && filter.from >= filter.to)
    throw invalidField("to", "after_from", "to must be after from");
  const page = parseCursorPage({ limit, offset, after });
  const scope = await access.listScope(caller, store_id ?? undefined);
  return { filter, page, scope };
}
