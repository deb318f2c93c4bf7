import { z } from "zod";
import { invalidField } from "./errors";

/**
 * Checks an input against a schema and names the first bad field (dotted path) and the rule it broke, so every
 * service reports bad input the same way: 400 `invalid_request` with `details.field` and `details.constraint`.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input ?? {}, { error: inPlatformWords });
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

const kinds: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  date: "a date",
};
const countOf: Record<string, string> = { array: " items", set: " items", string: " characters" };
const formats: Record<string, string> = {
  email: "an e-mail address",
  uuid: "a UUID",
  url: "a URL",
  datetime: "an ISO 8601 date and time",
  date: "a date (YYYY-MM-DD)",
};

/**
 * What a field needs, said the platform's way ("items must have at least 2 items") where a schema gives no message
 * of its own: zod's defaults ("Too small: expected array to have >=2 items") speak of its types, not of the API.
 */
function inPlatformWords(issue: z.core.$ZodRawIssue): string | undefined {
  const field = issue.path?.join(".") || "body";
  const bound = (word: string, value: unknown, inclusive: boolean | undefined) =>
    `${field} must ${issue.origin === "array" || issue.origin === "string" ? "have" : "be"} ${inclusive === false ? (word === "least" ? "more than" : "less than") : `at ${word}`} ${String(value)}${countOf[String(issue.origin)] ?? ""}`;
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined
        ? `${field} is required`
        : `${field} must be ${kinds[issue.expected] ?? issue.expected}`;
    case "too_small":
      return bound("least", issue.minimum, issue.inclusive);
    case "too_big":
      return bound("most", issue.maximum, issue.inclusive);
    case "invalid_value":
      return `${field} must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    case "invalid_format":
      return `${field} must be ${formats[issue.format] ?? "in the expected format"}`;
    case "not_multiple_of":
      return `${field} must be a multiple of ${String(issue.divisor)}`;
    case "unrecognized_keys":
      return `${issue.keys.join(", ")} ${issue.keys.length === 1 ? "is not a field" : "are not fields"} of ${field}`;
    case "invalid_union":
      return `${field} matches none of the accepted shapes`;
    default:
      return undefined;
  }
}

/** GraphQL's null arguments (an absent filter field) as absent ones, which input schemas know. */
export const withoutNulls = (fields: object | null | undefined) =>
  Object.fromEntries(Object.entries(fields ?? {}).filter(([, value]) => value !== null));
