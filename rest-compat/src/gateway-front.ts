import type { IncomingHttpHeaders } from "node:http";
import { AppError, type Caller } from "@pos-cloud/common";
import type { HmacVerifier } from "./hmac";
import type { RequestBody } from "./http";
import type { Bucket, RateLimiter } from "./rate-limit";
import type { RestResponse, RestRoute } from "./router";

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
  /** A store the request names (create body, list query), for the per-store limit. */
  storeHint: string | undefined;
}

/**
 * What every `/v1` request passes before its route runs: rate limits, partner signatures, CORS for web views.
 * Unsigned traffic (web views with a payment token, unknown paths, bad signatures) counts per IP; a verified
 * signed call counts per client partner and per named store instead, since many terminals share a POS server's IP.
 */
export function createGatewayFront(options: { hmac: HmacVerifier; limiter: RateLimiter; corsOrigins: string[] }) {
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
        partnerId = await options.hmac.verify({
          method: request.method,
          target: request.target,
          rawBody: request.body.raw,
          authorization: request.headers.authorization,
        });
      } catch (error) {
        await limit([{ limit: "ip", key: request.ip }], out);
        throw error;
      }
      const buckets: Bucket[] = [{ limit: "merchant", key: String(partnerId) }];
      if (request.storeHint) buckets.push({ limit: "store", key: `${partnerId}:${request.storeHint}` });
      await limit(buckets, out);
      return { type: "partner", id: String(partnerId), scopes: [] };
    },
  };
}

export type GatewayFront = ReturnType<typeof createGatewayFront>;

/** The store a gateway request names, if any: `merchant_store_id` in the JSON body or the query. */
export function storeHintOf(body: RequestBody | undefined, query: URLSearchParams): string | undefined {
  const fields = body?.fields as Record<string, unknown> | undefined;
  const fromBody = fields && typeof fields === "object" ? fields.merchant_store_id : undefined;
  const hint = typeof fromBody === "string" ? fromBody : query.get("merchant_store_id");
  return hint ? hint.slice(0, 255) : undefined;
}
