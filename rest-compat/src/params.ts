import { invalidField } from "@pos-cloud/common";

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
