import type { IncomingMessage } from "node:http";
import type { Caller } from "@pos-cloud/common";
import { AppError } from "@pos-cloud/common";
import type { ExecuteOperation } from "./graphql";
import type { RequestBody } from "./http";
import { decodeParam } from "./params";

export interface RestRequest {
  method: string;
  /** The path with its query string, exactly as sent (what signatures and idempotency fingerprints cover). */
  target: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: RequestBody;
  headers: IncomingMessage["headers"];
  /** The client's address, for per-IP limits. */
  ip: string;
  caller: Caller;
}

export interface RestResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** A plain-text body (a printable receipt), sent as `text/plain; charset=utf-8` in place of `body`'s JSON. */
  text?: string;
  /** A body sent as it is produced (an export), in place of `body`; its content type is in `headers`. */
  stream?: AsyncIterable<string>;
}

/**
 * A route as the API reference sees it: its operation and root field, whose types give the answer's schema, and
 * how it builds the operation's variables, which the reference calls with a probing request to learn which query
 * parameters, body fields and headers it reads. Operation routes fill it themselves; a route with its own `handle`
 * declares it next to it, with the same `variables` function its handler calls.
 */
export interface RouteDoc {
  operation: { toString(): string };
  field: string;
  /** The success status. */
  status: number;
  variables: (request: RestRequest) => Record<string, unknown>;
  /** A list page: the body is its `nodes`, the paging in headers. */
  page?: boolean;
  /** The body is this field of the root field's result (`payment_intent`), with the fields of `merge` beside it. */
  result?: string;
  merge?: string[];
  /** Fields of the root field's result the body leaves out (`replayed`, which a header tells instead). */
  omit?: string[];
  /** Null fields are left out of the answer rather than sent as null. */
  omitsNulls?: boolean;
  /** Served without a token (a login, a public key, a device not yet provisioned). */
  anonymous?: boolean;
  /** Answers `text/plain` as well when the client prefers it (`Accept`). */
  text?: boolean;
  /** The media types the answer comes in instead of JSON (an export's CSV or NDJSON). */
  formats?: string[];
  /** An OAuth 2.0 endpoint: form-encoded bodies, and its refusals as `{error, error_description}` (RFC 6749 §5.2). */
  oauth?: boolean;
}

export interface RestRoute {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** With `:name` segments, for example `/api/v1/stores/:id`. */
  path: string;
  /** Terminals call the portal and POS resources without the `/api/v1` prefix too. */
  alsoUnprefixed?: boolean;
  /**
   * Gateway authentication the edge performs before `handle`: `hmac` verifies the partner's signature and makes
   * the caller that partner; `payment_token` routes serve web views (CORS, per-IP limit) and pass the token on.
   */
  auth?: "hmac" | "payment_token";
  /**
   * The operation honours an Idempotency-Key: an exact replay of a signed request with one (same signature, same
   * key) reaches the key's stored answer instead of the replay check's 401.
   */
  idempotent?: true;
  /**
   * What a signed call acts on, named by a path parameter: a payment intent, or a ledger transaction of one. The
   * call counts against that intent's merchant and store (`createGatewayFront`) rather than against its partner.
   */
  actsOn?: { kind: "intent" | "transaction"; param: string };
  /**
   * The subgraph that runs this route's operation directly, for operations kept out of the public graph
   * (`@inaccessible`: web-view and provider operations `/graphql` must not serve); absent: through the gateway.
   */
  subgraph?: "payments";
  /** What the API reference (`openapi.ts`) derives this route's parameters and answers from. */
  doc: RouteDoc;
  handle(request: RestRequest, execute: ExecuteOperation): Promise<RestResponse>;
}

interface CompiledRoute {
  route: RestRoute;
  pattern: RegExp;
  names: string[];
}

function compile(route: RestRoute, path: string): CompiledRoute {
  const names: string[] = [];
  const source = path
    .split("/")
    .map((segment) => {
      if (!segment.startsWith(":")) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(segment.slice(1));
      return "([^/]+)";
    })
    .join("/");
  return { route, pattern: new RegExp(`^${source}/?$`), names };
}

/**
 * A known path asked with a method none of its routes has: the methods it has go in `details.allowed`, which
 * `sendError` sends as the `Allow` header RFC 9110 §15.5.6 requires on a 405. A `/v1` path also answers `OPTIONS`
 * (the edge's CORS preflight, on every gateway path), so that is allowed there too.
 */
function methodNotAllowed(method: string, pathname: string, methods: string[]): AppError {
  const allowed = [...new Set(pathname.startsWith("/v1/") ? [...methods, "OPTIONS"] : methods)];
  return new AppError("method_not_allowed", `${method} is not allowed on ${pathname}; use ${allowed.join(", ")}`, {
    method,
    allowed,
  });
}

export function createRouter(routes: RestRoute[]) {
  const compiled = routes.flatMap((route) => {
    const paths = [route.path];
    if (route.alsoUnprefixed) paths.push(route.path.replace(/^\/api\/v1/, ""));
    return paths.map((path) => compile(route, path));
  });
  return {
    /** The route for a method and path; `undefined` when no route has the path; 405 when only the method is wrong. */
    match(method: string, pathname: string): { route: RestRoute; params: Record<string, string> } | undefined {
      const allowed: string[] = [];
      for (const { route, pattern, names } of compiled) {
        const found = pattern.exec(pathname);
        if (!found) continue;
        allowed.push(route.method);
        if (route.method !== method) continue;
        const params = Object.fromEntries(names.map((name, i) => [name, decodeParam(found[i + 1]!, name)]));
        return { route, params };
      }
      if (allowed.length > 0) throw methodNotAllowed(method, pathname, allowed);
      return undefined;
    },
    /** Every route at a path, whatever its method (for CORS preflight). */
    routesAt(pathname: string): RestRoute[] {
      return compiled.filter(({ pattern }) => pattern.test(pathname)).map(({ route }) => route);
    },
  };
}

export type Router = ReturnType<typeof createRouter>;
