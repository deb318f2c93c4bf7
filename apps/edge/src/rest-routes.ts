import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApolloServer } from "@apollo/server";
import { AppError, type Caller, unauthenticated } from "@pos-cloud/common";
import {
  type ExecuteOperation,
  type GatewayFront,
  parseBody,
  paymentTokenOf,
  type RequestBody,
  type RestResponse,
  type Router,
  readBody,
  readRawBody,
  sendError,
  sendJson,
  sendStream,
  sendText,
  storeHintOf,
  subjectOf,
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

/**
 * A web view's route without a payment token anywhere the token is read (header, query, a body that parses) is
 * refused as the payments service refuses a wrong token, before the body's errors or the intent's lookup.
 */
function assertPaymentTokenSent(route: MatchedRoute["route"], url: URL, req: IncomingMessage, body: RequestBody) {
  if (route.auth !== "payment_token") return;
  if (paymentTokenOf({ query: url.searchParams, headers: req.headers, body }) === "")
    throw new AppError("invalid_token", "send the payment token of this payment intent");
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
  // Before the body is read or any id looked up: a refusal that depended on either would tell a caller without
  // credentials which ids exist (docs/decisions.md, "Authentication before anything else").
  if (caller.type === "anonymous" && !matched.route.doc.anonymous) throw unauthenticated();
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
    let raw: Buffer | undefined;
    try {
      matched = router.match(method, url.pathname);
      if (!matched) throw new AppError("not_found", `no route for ${method} ${url.pathname}`);
      seen.route = matched.route.path;
      raw = await readRawBody(req);
    } catch (error) {
      failure = error;
    }
    // The signature covers the bytes, so it is checked before they are parsed: a body that is no JSON is the
    // signer's to hear about, not an unsigned caller's.
    let body: RequestBody | undefined;
    let unparsed: unknown;
    try {
      body = raw ? parseBody(req.headers, raw) : undefined;
    } catch (error) {
      unparsed = error;
    }
    const admitted = await gateway.admit(
      {
        route: failure ? undefined : matched?.route,
        method,
        target: req.url ?? "/",
        headers: req.headers,
        ip: req.socket.remoteAddress ?? "unknown",
        body: raw ? (body ?? { raw, fields: {} }) : undefined,
        storeHint: storeHintOf(body, url.searchParams),
        subject: failure ? undefined : subjectOf(matched?.route, matched?.params),
      },
      headers,
    );
    const caller = { ...admitted, requestId };
    seen.caller = caller;
    if (failure || !matched || !raw) throw failure;
    assertPaymentTokenSent(matched.route, url, req, body ?? { raw, fields: {} });
    if (!body) throw unparsed;
    reply(res, await run(execute, matched, req, url, method, body, caller), headers);
  } catch (error) {
    sendError(res, error, headers);
  }
}
