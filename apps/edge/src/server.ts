import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { ApolloServer } from "@apollo/server";
import {
  AppError,
  type Caller,
  graphqlCode,
  type HttpTimeouts,
  httpServerOptions,
  inSpan,
  logger,
  REQUEST_ID_HEADER,
  requestIdOf,
  roles,
  SpanKind,
  serveHttpGraphQL,
  tierOf,
  traceContextOf,
} from "@pos-cloud/common";
import {
  type GatewayFront,
  type RateLimiter,
  type Router,
  readBody,
  sendError,
  sendJson,
} from "@pos-cloud/rest-compat";
import { logAccess, type Seen } from "./access-log";
import { takeApiLimit } from "./api-limit";
import type { ApiReference } from "./api-reference";
import type { Authenticator } from "./authenticate";
import { type ConnectionLimits, isRefusedConnection, limitConnections } from "./connection-limits";
import { CONSOLE_PATH, type ConsoleAssets } from "./console-assets";
import { authorizationServerMetadata, DISCOVERY_PATH } from "./discovery";
import type { GatewayContext } from "./gateway";
import { refuseClientError, securityHeaders } from "./request-guards";
import { operationsOn, type RestRoutes, serveGateway, serveRoute } from "./rest-routes";

export interface EdgeOptions {
  graphql: ApolloServer<GatewayContext>;
  router: Router;
  /** Rate limits, partner signatures and CORS for the payment gateway API (`/v1`). */
  gateway: GatewayFront;
  /** Bearer JWTs (human and device) for everything but `/v1`, which has its own credentials. */
  authenticator: Authenticator;
  /** Counts portal and POS requests against the `api` bucket (`/v1` counts its own buckets in `gateway`). */
  limiter: RateLimiter;
  /**
   * What the embedded platform's sandbox mail server and SMS relay received (`GET /api/v1/dev/messages`, system operators only); absent
   * unless the mailbox is configured on.
   */
  devMessages?: () => unknown[];
  httpTimeouts?: Partial<HttpTimeouts>;
  /** Connections held at once, in all and per client address; the defaults of `defaultConnectionLimits` where unset. */
  connectionLimits?: Partial<ConnectionLimits>;
  /** The platform's address as clients reach it (the discovery document's issuer); the request's Host when unknown. */
  publicUrl?: () => string | undefined;
  /** `/openapi.json` and `/docs`. */
  apiReference: ApiReference;
  /** The operator console's page and assets under `/console`. */
  consoleAssets: ConsoleAssets;
}

/** The development mailbox holds login codes: only a system operator, who may reach every tenant anyway, reads it. */
function assertSystemOperator(caller: Caller) {
  if (caller.type === "anonymous") throw new AppError("unauthorized", "log in as a system operator");
  if (tierOf(caller) !== roles.SYSTEM_OP)
    throw new AppError("forbidden", "only a system operator may read the development mailbox");
}

/** The caller of a request: its bearer token's identity (or anonymous), with the client's address and agent. */
async function callerOf(req: IncomingMessage, authenticator: Authenticator, requestId: string): Promise<Caller> {
  const { caller } = await authenticator.authenticate(req.headers.authorization);
  return { ...caller, ip: req.socket.remoteAddress, userAgent: req.headers["user-agent"], requestId };
}

const GRAPHQL_RESPONSE_TYPE = "application/graphql-response+json";

/**
 * A failure before GraphQL runs (a refused token, a rate limit, a body that is no JSON) as GraphQL clients read
 * every answer of `/graphql`: `errors` with `extensions.code` in GraphQL's spelling, at the status REST would have.
 * A refused bearer token says so in `WWW-Authenticate` (RFC 6750), so a client refreshes it. A client that accepts
 * `application/graphql-response+json` gets it, as from GraphQL itself: clients read an error status's body as
 * GraphQL's only in that media type (Apollo Client reports a bare `ServerError` otherwise).
 */
function sendGraphQLError(req: IncomingMessage, res: ServerResponse, error: unknown) {
  const failure = error instanceof AppError ? error : new AppError("internal_error", "internal error");
  if (!(error instanceof AppError))
    logger.error("unhandled error", { request_id: res.getHeader(REQUEST_ID_HEADER), error });
  const headers: Record<string, string> = (req.headers.accept ?? "").includes(GRAPHQL_RESPONSE_TYPE)
    ? { "content-type": `${GRAPHQL_RESPONSE_TYPE}; charset=utf-8` }
    : {};
  if (failure.code === "unauthorized") headers["www-authenticate"] = 'Bearer error="invalid_token"';
  const extensions = { code: graphqlCode(failure.code), details: failure.details };
  sendJson(res, failure.status, { errors: [{ message: failure.message, extensions }] }, headers);
}

/** Paths served outside the router, which are their own route in the request metrics. */
const fixedPaths = new Set(["/health", "/graphql", "/api/v1/dev/messages", DISCOVERY_PATH]);

async function admitApiRequest(limiter: RateLimiter, caller: Caller, res: ServerResponse) {
  const decision = await takeApiLimit(limiter, caller);
  for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
  if (decision.exceeded)
    throw new AppError("rate_limit_exceeded", "too many requests; retry after Retry-After seconds");
}

/** Serves a request of the edge's port by its path; a failure is the caller's to answer. */
function edgeRequests({
  graphql,
  router,
  gateway,
  authenticator,
  limiter,
  devMessages,
  publicUrl,
  apiReference,
  consoleAssets,
}: EdgeOptions) {
  const servedPaths = new Set([...fixedPaths, ...apiReference.paths]);
  const routes: RestRoutes = { router, gateway, execute: operationsOn(graphql) };

  return async function handle(req: IncomingMessage, res: ServerResponse, requestId: string, seen: Seen) {
    const url = new URL(req.url ?? "/", "http://edge");
    const method = req.method ?? "GET";
    if (servedPaths.has(url.pathname)) seen.route = url.pathname;
    if (url.pathname === "/health" && method === "GET") return sendJson(res, 200, { status: "ok" });
    if (url.pathname === DISCOVERY_PATH && method === "GET")
      return sendJson(res, 200, authorizationServerMetadata(req, publicUrl?.()));
    if (apiReference.serve(url.pathname, method, res)) return;
    if (consoleAssets.serve(req, res, url.pathname)) {
      seen.route = CONSOLE_PATH;
      return;
    }
    if (url.pathname === "/v1" || url.pathname.startsWith("/v1/"))
      return serveGateway(routes, req, res, url, method, requestId, seen);
    const caller = await callerOf(req, authenticator, requestId);
    seen.caller = caller;
    await admitApiRequest(limiter, caller, res);
    if (devMessages && url.pathname === "/api/v1/dev/messages" && method === "GET") {
      assertSystemOperator(caller);
      return sendJson(res, 200, { data: devMessages() });
    }
    if (url.pathname === "/graphql") {
      const body = method === "POST" ? (await readBody(req)).fields : undefined;
      return serveHttpGraphQL(graphql, req, res, body, async () => ({ caller }));
    }
    return serveRoute(routes, req, res, url, method, caller, seen);
  };
}

/**
 * The public port: `/health`, `/graphql` (HTTP; WebSocket is attached by `attachWebSocket`), and every REST route,
 * behind the connection caps. `/ready` and `/metrics` are the operator's, on a port of their own (`./index`).
 */
/** The edge's span of a request: the trace a client's `traceparent` names, or a new one. */
const edgeSpan = (req: IncomingMessage, requestId: string) => ({
  kind: SpanKind.SERVER,
  parent: traceContextOf(req.headers),
  attributes: {
    "http.request.method": req.method ?? "GET",
    "url.path": (req.url ?? "/").split("?")[0]!,
    request_id: requestId,
  },
});

export function createEdgeServer(options: EdgeOptions): Server {
  const handle = edgeRequests(options);
  const server = createServer(httpServerOptions(options.httpTimeouts), (req, res) => {
    // Answered 503 when it connected: nothing it asks for runs.
    if (isRefusedConnection(req.socket)) return;
    const requestId = requestIdOf(req.headers[REQUEST_ID_HEADER]);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    for (const [name, value] of Object.entries(securityHeaders)) res.setHeader(name, value);
    const seen: Seen = {};
    logAccess(req, res, requestId, seen);
    inSpan(`${req.method} ${(req.url ?? "/").split("?")[0]}`, edgeSpan(req, requestId), async (span) => {
      await handle(req, res, requestId, seen);
      span.setAttribute("http.response.status_code", res.statusCode);
    }).catch((error) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (new URL(req.url ?? "/", "http://edge").pathname === "/graphql") return sendGraphQLError(req, res, error);
      sendError(res, error);
    });
  });
  server.on("clientError", refuseClientError);
  limitConnections(server, options.connectionLimits);
  return server;
}
