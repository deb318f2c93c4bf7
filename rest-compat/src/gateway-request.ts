import { createHash } from "node:crypto";
import type { RestRequest } from "./router";

/**
 * The payment token a web view sends: `payment_token` in the query (GET) or the JSON body (POST), or
 * `Authorization: Bearer <token>`. An absent token is passed on as "" so the payments service answers it as it
 * answers any invalid one.
 */
export function paymentTokenOf({ query, body, headers }: RestRequest): string {
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? "")?.[1];
  const fields = body.fields as Record<string, unknown>;
  const fromBody = fields && typeof fields === "object" ? fields.payment_token : undefined;
  return bearer ?? query.get("payment_token") ?? (typeof fromBody === "string" ? fromBody : "");
}

/** `Idempotency-Key` and the request's fingerprint: the same key must come with the same method, path and body. */
export function idempotencyOf({ headers, method, target, body }: RestRequest) {
  const key = headers["idempotency-key"];
  if (key === undefined) return null;
  const request_hash = createHash("sha256").update(`${method}\n${target}\n`).update(body.raw).digest("hex");
  return { key: Array.isArray(key) ? key.join(",") : key, request_hash };
}
