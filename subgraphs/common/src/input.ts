import { z } from "zod";
import { invalidField } from "./errors";

/**
 * Checks an input against a schema and names the first bad field (dotted path) and the rule it broke, so every
 * service reports bad input the same way: 400 `invalid_request` with `details.field` and `details.constraint`.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
  const field = [...issue.path, ...keys.slice(0, 1)].join(".") || "body";
  // A refinement names its own constraint (`printable_text`); zod calls every refinement `custom`.
  const named = issue.code === "custom" ? issue.params?.constraint : undefined;
  throw invalidField(field, typeof named === "string" ? named : issue.code, issue.message);
}

/** Page of a list: limit default 20, at most 100; offset from 0. */
export const pageSchema = z.object({
  limit: z.number().int().min(1).max(100).default(20),
  offset: z.number().int().min(0).default(0),
});
export type Page = z.output<typeof pageSchema>;

/** A page as a caller asks for it (GraphQL arguments may be null). */
export type PageArgs = { limit?: number | null; offset?: number | null };

export const parsePage = (page: PageArgs): Page =>
  parseInput(pageSchema, { limit: page.limit ?? undefined, offset: page.offset ?? undefined });
