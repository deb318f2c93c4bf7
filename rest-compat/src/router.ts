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
   * The subgraph that runs this route's operation directly, for operations kept out of the public graph
   * (`@inaccessible`: web-view and provider operations `/graphql` must not serve); absent: through the gateway.
   */
  subgraph?: "payments";
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

export function createRouter(routes: RestRoute[]) {
  const compiled = routes.flatMap((route) => {
    const paths = [route.path];
    if (route.alsoUnprefixed) paths.push(route.path.replace(/^\/api\/v1/, ""));
    return paths.map((path) => compile(route, path));
  });
  return {
    /** The route for a method and path; `undefined` when no route has the path; 405 when only the method is wrong. */
    match(method: string, pathname: string): { route: RestRoute; params: Record<string, string> } | undefined {
      let pathKnown = false;
      for (const { route, pattern, names } of compiled) {
        const found = pattern.exec(pathname);
        if (!found) continue;
        pathKnown = true;
        if (route.method !== method) continue;
        const params = Object.fromEntries(names.map((name, i) => [name, decodeParam(found[i + 1]!, name)]));
        return { route, params };
      }
      if (pathKnown) throw new AppError("method_not_allowed", `${method} is not allowed on ${pathname}`);
      return undefined;
    },
    /** Every route at a path, whatever its method (for CORS preflight). */
    routesAt(pathname: string): RestRoute[] {
      return compiled.filter(({ pattern }) => pattern.test(pathname)).map(({ route }) => route);
    },
  };
}

export type Router = ReturnType<typeof createRouter>;
