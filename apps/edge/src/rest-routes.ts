import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApolloServer } from "@apollo/server";
import { AppError, type Caller } from "@pos-cloud/common";
import {
  type ExecuteOperation,
  type GatewayFront,
  type RequestBody,
  type RestResponse,
  type Router,
  readBody,
  sendError,
  sendJson,
  sendStream,
  sendText,
  storeHintOf,
} from "@pos-cloud/rest-compat";
import type { Seen } from "./access-log";
import type { GatewayContext } from "./gateway";
import { assertStorableRequest } from "./request-guards";

/** What serves the REST routes: the route table, the `/v1` front, and how a route runs its GraphQL operation. */
export interface RestRoutes {
  router: Router;
  gateway: GatewayFront;
  execute: ExecuteOperation;
}

type MatchedRoute = NonNullable<ReturnType<Router["match"]>>;

/** A route's GraphQL operation, run in-process by the gateway's server. */
export function operationsOn(graphql: ApolloServer<GatewayContext>): ExecuteOperation {
  return async (query, variables, caller) => {
    const response = await graphql.executeOperation({ query, variables }, { contextValue: { caller } });
    if (response.body.kind !== "single") throw new AppError("internal_error", "incremental delivery is not supported");
    return response.body.singleResult;
  };
}

function run(
  execute: ExecuteOperation,
  matched: MatchedRoute,
  req: IncomingMessage,
  url: URL,
  method: string,
  body: RequestBody,
  caller: Caller,
) {
  assertStorableRequest(matched.params, url, body);
  return matched.route.handle(
    {
      method,
      target: req.url ?? "/",
      params: matched.params,
      query: url.searchParams,
      body,
      headers: req.headers,
      ip: req.socket.remoteAddress ?? "unknown",
      caller,
    },
    execute,
  );
}

function reply(res: ServerResponse, response: RestResponse, headers: Record<string, string> = {}) {
  if (response.status === 204) {
    res.writeHead(204, { ...headers, ...response.headers });
    res.end();
    return;
  }
  if (response.text !== undefined)
    return sendText(res, response.status, response.text, { ...headers, ...response.headers });
  if (response.stream) return sendStream(res, response.status, response.stream, { ...headers, ...response.headers });
  sendJson(res, response.status, response.body, { ...headers, ...response.headers });
}

/** A portal or POS route, for a caller the edge authenticated and admitted. */
export async function serveRoute(
  { router, execute }: RestRoutes,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  method: string,
  caller: Caller,
  seen: Seen,
) {
  const matched = router.match(method, url.pathname);
  if (!matched) throw new AppError("not_found", `no route for ${method} ${url.pathname}`);
  seen.route = matched.route.path;
  const body = await readBody(req);
  reply(res, await run(execute, matched, req, url, method, body, caller));
}

/**
 * A payment gateway API (`/v1`) request. Every `/v1` response, errors included, carries the rate-limit headers, so
 * the request is admitted (counted, and verified when signed) even when its path or body turns out to be wrong.
 */
export async function serveGateway(
  { router, gateway, execute }: RestRoutes,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  method: string,
  requestId: string,
  seen: Seen,
) {
  const headers: Record<string, string> = {};
  try {
    if (method === "OPTIONS") return reply(res, gateway.preflight(router.routesAt(url.pathname), req.headers));
    let failure: unknown;
    let matched: ReturnType<Router["match"]>;
    let body: RequestBody | undefined;
    try {
      matched = router.match(method, url.pathname);
      if (!matched) throw new AppError("not_found", `no route for ${method} ${url.pathname}`);
      seen.route = matched.route.path;
      body = await readBody(req);
    } catch (error) {
      failure = error;
    }
    const admitted = await gateway.admit(
      {
        route: failure ? undefined : matched?.route,
        method,
        target: req.url ?? "/",
        headers: req.headers,
        ip: req.socket.remoteAddress ?? "unknown",
        body,
        storeHint: storeHintOf(body, url.searchParams),
      },
      headers,
    );
    const caller = { ...admitted, requestId };
    seen.caller = caller;
    if (failure || !matched || !body) throw failure;
    reply(res, await run(execute, matched, req, url, method, body, caller), headers);
  } catch (error) {
    sendError(res, error, headers);
  }
}
