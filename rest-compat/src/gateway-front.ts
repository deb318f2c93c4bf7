import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { AppError, type Caller, unstorableTextPath } from "@pos-cloud/common";
import { idempotencyKeyOf } from "./gateway-request";
import type { HmacVerifier, VerifiedSignature } from "./hmac";
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
  /** What the request acts on (its path names it): the store of its intent counts the request instead. */
  subject: GatewaySubject | undefined;
}

/** A payment intent, or a ledger transaction of one, that a signed call acts on, by the id its path gives. */
export type GatewaySubject = { kind: NonNullable<RestRoute["actsOn"]>["kind"]; id: string };

/** The store a signed request is for, and its merchant: what the per-store and per-merchant limits count. */
export type GatewayStore = { store_id: number; merchant_id: number } | null;

/** A store moved to another merchant is counted against the new one within this time. */
const STORE_CACHE_MS = 30_000;

/**
 * The buckets a verified signed call counts against besides the global one: the merchant and store it concerns, or,
 * when it concerns none the edge can find (the key's own settings, sync, a list without a store, an unknown intent),
 * the partner's own bucket under the per-merchant limit (docs/decisions/gateway.md, "Rate limits").
 */
export function partnerBuckets(client_partner_id: number, store: GatewayStore): Bucket[] {
  if (!store) return [{ limit: "merchant", key: `partner:${client_partner_id}` }];
  return [
    { limit: "merchant", key: `merchant:${store.merchant_id}` },
    { limit: "store", key: String(store.store_id) },
  ];
}

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
 * a POS server's IP and one POS partner serves many merchants. A call on an intent counts against the intent's store
 * (a capture, a refund, a read of one of its ledger rows); a call that concerns neither a store nor an intent the edge can find counts against the
 * partner's own bucket (`partnerBuckets`).
 */
export function createGatewayFront(options: {
  hmac: HmacVerifier;
  limiter: RateLimiter;
  corsOrigins: string[];
  /** Remembers signatures of state-changing requests, so each is accepted once. */
  seenSignatures: SeenSignatures;
  /** The partner's store a request names (none named: the partner's only store), from the payments subgraph. */
  fetchStore: (client_partner_id: number, merchant_store_id: string | null) => Promise<GatewayStore>;
  /** The store of the partner's intent a call acts on (null: unknown, or another partner's), from payments. */
  fetchSubjectStore: (client_partner_id: number, subject: GatewaySubject) => Promise<GatewayStore>;
}) {
  const storeOf = cachedLookup(
    ({ partner, hint }: { partner: number; hint: string | null }) => options.fetchStore(partner, hint),
    { ttlMs: STORE_CACHE_MS, keyOf: ({ partner, hint }) => `${partner}:${hint ?? ""}` },
  );
  const subjectStoreOf = cachedLookup(
    ({ partner, subject }: { partner: number; subject: GatewaySubject }) => options.fetchSubjectStore(partner, subject),
    { ttlMs: STORE_CACHE_MS, keyOf: ({ partner, subject }) => `${partner}:${subject.kind}:${subject.id}` },
  );
  /** The store a verified call concerns: its intent's when it acts on one, else the store it names. */
  const storeConcerned = (partner: number, request: GatewayAdmission) =>
    request.subject === undefined
      ? storeOf({ partner, hint: request.storeHint ?? null })
      : subjectStoreOf({ partner, subject: request.subject });
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
      let signed: Pick<VerifiedSignature, "client_partner_id" | "api_key_id" | "permissions" | "store_ids">;
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
        signed = signature;
      } catch (error) {
        await limit([{ limit: "ip", key: request.ip }], out);
        throw error;
      }
      const partnerId = signed.client_partner_id;
      await limit(partnerBuckets(partnerId, await storeConcerned(partnerId, request)), out);
      return {
        type: "partner",
        id: String(partnerId),
        scopes: signed.permissions,
        storeIds: signed.store_ids,
        apiKeyId: signed.api_key_id,
      };
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

/**
 * What a gateway request acts on: the path parameter its route names (`RestRoute.actsOn`), when it could be an id at
 * all; otherwise nothing, and the request counts against the store it names or the partner.
 */
export function subjectOf(
  route: RestRoute | undefined,
  params: Record<string, string> | undefined,
): GatewaySubject | undefined {
  const id = route?.actsOn && params?.[route.actsOn.param];
  if (!route?.actsOn || !id || id.length > 255 || unstorableTextPath(id) !== undefined) return undefined;
  return { kind: route.actsOn.kind, id };
}
