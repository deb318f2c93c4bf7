import type { RestRequest } from "./router";

/**
 * The payment token a web view sends: `payment_token` in the query (GET) or the JSON body (POST), or
 * `Authorization: Bearer <token>`. An absent token is passed on as "" so the payments service answers it as it
 * answers any invalid one.
 */
export function paymentTokenOf({ query, body, headers }: Pick<RestRequest, "query" | "body" | "headers">): string {
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? "")?.[1];
  const fields = body.fields as Record<string, unknown>;
  const fromBody = fields && typeof fields === "object" ? fields.payment_token : undefined;
  return bearer ?? query.get("payment_token") ?? (typeof fromBody === "string" ? fromBody : "");
}

/**
 * The `Idempotency-Key` header, or null. The payments subgraph binds it to the operation's parameters, not to these
 * bytes, so a retry that re-serialises the same body is still the same request.
 */
export function idempotencyKeyOf({ headers }: Pick<RestRequest, "headers">): string | null {
  const key = headers["idempotency-key"];
  if (key === undefined) return null;
  return Array.isArray(key) ? key.join(",") : key;
}

/** A replayed answer says so, the way Stripe does; the body is the first one's. */
export const replayHeaders = (result: { replayed: boolean }) =>
  result.replayed ? { "Idempotent-Replayed": "true" } : undefined;
