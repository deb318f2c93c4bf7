import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { AppError, type Caller, unstorableTextPath } from "@pos-cloud/common";
import { idempotencyKeyOf } from "./gateway-request";
import type { HmacVerifier } from "./hmac";
import type { RequestBody } from "./http";
import { cachedLookup } from "./lookup-cache";
import type { Bucket, RateLimiter } from "./rate-limit";
import type { RestResponse, RestRoute } from "./router";
import type { SeenSignatures } from "./seen-signatures";

const anonymousCaller: Caller = { type: "anonymous", scopes: [] };
const exposedHeaders = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Idempotent-Replayed";

export interface GatewayAdmission {
  route: RestRoute | undefined;
  method: string;
  target: string;
  headers: IncomingHttpHeaders;
  ip: string;
  /** Absent when the body could not be read; the request is then counted as an unauthenticated one. */
  body: RequestBody | undefined;
  /** A store the request names (create body, list query), for the per-store and per-merchant limits. */
  storeHint: string | undefined;
}

/** The store a signed request is for, and its merchant: what the per-store and per-merchant limits count. */
export type GatewayStore = { store_id: number; merchant_id: number } | null;

/** A store moved to another merchant is counted against the new one within this time. */
const STORE_CACHE_MS = 30_000;

const replayed = () =>
  new AppError("unauthorized", "this signature was already used; sign every state-changing request anew");

/** Reads change nothing, so a signed GET may be sent again (a partner polling its list); anything else is once. */
const changesState = (method: string) => method !== "GET";

/**
 * What the replay check remembers of a request's Idempotency-Key: its hash, on a route that honours the key (else
 * null, and a replay is refused whatever the header says).
 */
function replayKeyOf(route: RestRoute, headers: IncomingHttpHeaders): string | null {
  const key = route.idempotent ? idempotencyKeyOf({ headers }) : null;
  return key === null ? null : createHash("sha256").update(key).digest("hex");
}

/**
 * What every `/v1` request passes before its route runs: rate limits, partner signatures, CORS for web views.
 * Unsigned traffic (web views with a payment token, unknown paths, bad or replayed signatures) counts per IP; a
 * verified signed call counts per merchant and per store of the store it names instead, since many terminals share
 * a POS server's IP and one POS partner serves many merchants. A call that names no store the edge can find (and
 * whose partner has more than one) counts against the partner's own bucket under the per-merchant limit.
 */
export function createGatewayFront(options: {
  hmac: HmacVerifier;
  limiter: RateLimiter;
  corsOrigins: string[];
  /** Remembers signatures of state-changing requests, so each is accepted once. */
  seenSignatures: SeenSignatures;
  /** The partner's store a request names (none named: the partner's only store), from the payments subgraph. */
  fetchStore: (client_partner_id: number, merchant_store_id: string | null) => Promise<GatewayStore>;
}) {
  const storeOf = cachedLookup(
    ({ partner, hint }: { partner: number; hint: string | null }) => options.fetchStore(partner, hint),
    { ttlMs: STORE_CACHE_MS, keyOf: ({ partner, hint }) => `${partner}:${hint ?? ""}` },
  );
  const origins = new Set(options.corsOrigins);
  const allowedOrigin = (headers: IncomingHttpHeaders) => {
    const origin = headers.origin;
    return origin && origins.has(origin) ? origin : undefined;
  };

  async function limit(buckets: Bucket[], out: Record<string, string>) {
    const decision = await options.limiter.take([{ limit: "global", key: "all" }, ...buckets]);
    Object.assign(out, decision.headers);
    if (decision.exceeded) throw new AppError("rate_limit_exceeded", "too many requests; retry after the reset time");
  }

  return {
    /** Answers a CORS preflight for the payment-token endpoints; other paths get no CORS grant. */
    preflight(routes: RestRoute[], headers: IncomingHttpHeaders): RestResponse {
      const tokenRoutes = routes.filter((route) => route.auth === "payment_token");
      const origin = allowedOrigin(headers);
      if (tokenRoutes.length === 0 || !origin) return { status: 204, body: null, headers: { Vary: "Origin" } };
      return {
        status: 204,
        body: null,
        headers: {
          "Access-Control-Allow-Origin": origin,
          "Access-Control-Allow-Methods": [...new Set(tokenRoutes.map((route) => route.method)), "OPTIONS"].join(", "),
          "Access-Control-Allow-Headers": "Authorization, Content-Type",
          "Access-Control-Max-Age": "600",
          Vary: "Origin",
        },
      };
    },

    /**
     * Counts the request and, for a signed route, verifies the signature. Headers every response must carry are
     * written to `out` before anything is thrown, so errors carry them too. Returns the caller the route runs as.
     */
    async admit(request: GatewayAdmission, out: Record<string, string>): Promise<Caller> {
      const { route } = request;
      const origin = allowedOrigin(request.headers);
      if (route?.auth === "payment_token" && origin) {
        Object.assign(out, {
          "Access-Control-Allow-Origin": origin,
          "Access-Control-Expose-Headers": exposedHeaders,
          Vary: "Origin",
        });
      }
      if (route?.auth !== "hmac" || !request.body) {
        await limit([{ limit: "ip", key: request.ip }], out);
        return anonymousCaller;
      }
      let partnerId: number;
      try {
        const signature = await options.hmac.verify({
          method: request.method,
          target: request.target,
          rawBody: request.body.raw,
          authorization: request.headers.authorization,
        });
        // Before the partner's limits, so replaying a captured request spends the replayer's budget, not theirs. An
        // exact replay with the same Idempotency-Key passes: the key answers it (its stored response, or a conflict
        // while the first runs), and HTTP clients resend identical bytes on a retry. The key is bound to the
        // signature, so a captured request cannot be replayed under a key of the replayer's choosing.
        if (
          changesState(request.method) &&
          !(await options.seenSignatures.claim(
            signature.fingerprint,
            signature.ttl_seconds,
            replayKeyOf(route, request.headers),
          ))
        ) {
          throw replayed();
        }
        partnerId = signature.client_partner_id;
      } catch (error) {
        await limit([{ limit: "ip", key: request.ip }], out);
        throw error;
      }
      const store = await storeOf({ partner: partnerId, hint: request.storeHint ?? null });
      const buckets: Bucket[] = store
        ? [
            { limit: "merchant", key: `merchant:${store.merchant_id}` },
            { limit: "store", key: String(store.store_id) },
          ]
        : [{ limit: "merchant", key: `partner:${partnerId}` }];
      await limit(buckets, out);
      return { type: "partner", id: String(partnerId), scopes: [] };
    },
  };
}

export type GatewayFront = ReturnType<typeof createGatewayFront>;

/**
 * The store a gateway request names, if any: `merchant_store_id` in the JSON body or the query. Text no store's id
 * can be (NUL, a lone surrogate, which PostgreSQL refuses) names none: admission counts the request against the
 * partner, and the edge's text check answers it with a 400 naming the field.
 */
export function storeHintOf(body: RequestBody | undefined, query: URLSearchParams): string | undefined {
  const fields = body?.fields as Record<string, unknown> | undefined;
  const fromBody = fields && typeof fields === "object" ? fields.merchant_store_id : undefined;
  // Checked after the cut, which can split a surrogate pair.
  const hint = (typeof fromBody === "string" ? fromBody : query.get("merchant_store_id"))?.slice(0, 255);
  return hint && unstorableTextPath(hint) === undefined ? hint : undefined;
}
