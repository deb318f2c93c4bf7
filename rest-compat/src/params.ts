import { invalidField } from "@pos-cloud/common";

/** A path parameter as text; percent-escapes that are no UTF-8 (`%ED%A0%80`, a lone surrogate) are a 400. */
export function decodeParam(value: string, name: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw invalidField(name, "text", `${name} is not valid percent-encoded UTF-8`);
  }
}

/** A query or path parameter that must be an integer: absent is undefined, anything else not an integer a 400. */
export function integerParam(value: string | null | undefined, field: string): number | undefined {
  if (value === null || value === undefined || value === "") return undefined;
  if (!/^-?\d{1,15}$/.test(value)) throw invalidField(field, "integer", `${field} must be an integer`);
  return Number(value);
}

/** limit and offset of a list, checked for range by the service. */
export const pageParams = (query: URLSearchParams) => ({
  limit: integerParam(query.get("limit"), "limit"),
  offset: integerParam(query.get("offset"), "offset"),
});

/**
 * Refuses form-encoded text (a query string, a form body) with a percent-escape that is no UTF-8 (`%ED%A0%80`, a
 * lone surrogate), naming the field: `URLSearchParams` would read it as U+FFFD and act on other text than was sent.
 */
export function assertUtf8Form(text: string): void {
  for (const pair of text.replace(/^\?/, "").split("&")) {
    const equals = pair.indexOf("=");
    if (equals < 0) decodeParam(pair, "query");
    else decodeParam(pair.slice(equals + 1), decodeParam(pair.slice(0, equals), "query"));
  }
}

/** A field of a JSON body that should be an object; absent when the body is something else. */
export const bodyField = (fields: unknown, name: string) =>
  fields && typeof fields === "object" && !Array.isArray(fields)
    ? (fields as Record<string, unknown>)[name]
    : undefined;
