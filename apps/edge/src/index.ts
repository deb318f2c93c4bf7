import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  type HttpTimeouts,
  isOutOfDescriptors,
  logger,
  outOfDescriptors,
  type ReadinessChecks,
  repositoryRoot,
  type SubgraphEndpoint,
  serveOperatorPort,
  shedWhenOutOfDescriptors,
} from "@pos-cloud/common";
import type { JobState } from "@pos-cloud/common/jobs";
import type { MessageBus } from "@pos-cloud/common/messaging";
import { metrics } from "@pos-cloud/common/metrics";
import {
  connectRedis,
  createGatewayFront,
  createHmacVerifier,
  createRateLimiter,
  createRouter,
  type RateLimiter,
  type RateLimits,
  type RedisDownPolicy,
  type RestRoute,
  redisSeenSignatures,
  restRoutes,
  type SeenSignatures,
} from "@pos-cloud/rest-compat";
import type { Redis } from "ioredis";
import { createApiReference } from "./api-reference";
import { createAuthenticator } from "./authenticate";
import type { ConnectionLimits } from "./connection-limits";
import { createConsoleAssets } from "./console-assets";
import { startGraphQL } from "./gateway";
import { type GraphQLLimits, graphQLLimits } from "./graphql-limits";
import { edgeMetrics } from "./instance-metrics";
import { forgetSecretsOnRevocation } from "./key-revocations";
import {
  ClaimSignatureDocument,
  GatewayIntentStoreDocument,
  GatewayStoreDocument,
  GatewayTransactionStoreDocument,
  PartnerCredentialsDocument,
  TouchApiKeyDocument,
} from "./operations/payments.generated";
import { createEdgeServer } from "./server";
import { type CallSubgraph, createSubgraphClient, subgraphExecutor } from "./subgraph-client";
import { attachWebSocket } from "./websocket";

export type { SubgraphEndpoint } from "@pos-cloud/common";
export type { ConnectionLimits } from "./connection-limits";
export { limitSettings, limitsFromEnvironment } from "./environment";
export type { GraphQLLimits } from "./graphql-limits";

export interface EdgeConfig {
  port: number;
  host: string;
  /**
   * The operator's listener (`/health`, `/ready`, `/metrics`): `ADMIN_PORT` on `ADMIN_HOST`; a free loopback port
   * when absent (tests that start an edge of their own).
   */
  admin?: { port: number; host: string };
  subgraphs: Record<string, SubgraphEndpoint>;
  internalToken: string;
  /** Web-view origins allowed on the payment-token endpoints. */
  corsOrigins?: string[];
  /** The `aud` every access token must carry (`DEFAULT_API_AUDIENCE` unless set). */
  apiAudience?: string;
  /** The platform's address as clients reach it, for the discovery document; the request's Host when unknown. */
  publicUrl?: () => string | undefined;
  /**
   * Rate-limit counters and seen request signatures in Redis (shared by edge instances); when absent, counters in
   * memory and signatures in the payments database.
   */
  redisUrl?: string;
  redisKeyPrefix?: string;
  /** While Redis is unreachable: count in each instance's memory (`open`, the default) or answer 503 (`closed`). */
  rateLimitRedisDown?: RedisDownPolicy;
  /** The spec's limits unless a test or benchmark changes them. */
  rateLimits?: Partial<RateLimits>;
  /** How long a client may take to send its headers and its request; the defaults of `defaultHttpTimeouts` where unset. */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** Connections the public port holds at once, in all and per client address; `defaultConnectionLimits` where unset. */
  connectionLimits?: Partial<ConnectionLimits>;
  /** Token expiry and key caching read it; tests move it together with the portal's. */
  clock?: () => Date;
  /** What the embedded platform's sandbox mail server and SMS relay received, served at `GET /api/v1/dev/messages`. */
  devMessages?: () => unknown[];
  /** What one GraphQL operation may ask for and how long it may run; unset values keep their defaults. */
  graphqlLimits?: Partial<GraphQLLimits>;
  /** Introspection and field suggestions in GraphQL errors; off unless set (development only). */
  graphqlSchemaDetails?: boolean;
  /** What `GET /ready` checks besides the bus, Redis and the subgraphs served over HTTP (databases). */
  readiness?: ReadinessChecks;
  /** The periodic jobs `GET /ready` lists (the embedded platform's). */
  jobs?: () => JobState[];
  /** The platform's message bus: graphql-ws subscriptions follow its internal topic. */
  bus: MessageBus;
}

function createGateway(config: EdgeConfig, limiter: RateLimiter, callSubgraph: CallSubgraph, redis?: Redis) {
  const clock = config.clock;
  const hmac = createHmacVerifier({
    fetchSecrets: async (client_id) =>
      (await callSubgraph("payments", PartnerCredentialsDocument, { client_id })).partnerCredentials,
    reportUse: (id) => callSubgraph("payments", TouchApiKeyDocument, { id }),
    clock: clock && (() => clock().getTime()),
  });
  const seenSignatures: SeenSignatures = redis
    ? redisSeenSignatures(redis, config.redisKeyPrefix)
    : {
        claim: async (signature, ttl_seconds, idempotency_key) =>
          (await callSubgraph("payments", ClaimSignatureDocument, { signature, ttl_seconds, idempotency_key }))
            .claimSignature,
      };
  const front = createGatewayFront({
    hmac,
    limiter,
    corsOrigins: config.corsOrigins ?? [],
    seenSignatures,
    fetchStore: async (client_partner_id, merchant_store_id) =>
      (await callSubgraph("payments", GatewayStoreDocument, { client_partner_id, merchant_store_id })).gatewayStore,
    fetchSubjectStore: async (client_partner_id, { kind, id }) =>
      kind === "intent"
        ? (await callSubgraph("payments", GatewayIntentStoreDocument, { client_partner_id, payment_intent_id: id }))
            .gatewayIntentStore
        : (await callSubgraph("payments", GatewayTransactionStoreDocument, { client_partner_id, transaction_id: id }))
            .gatewayTransactionStore,
  });
  return { front, forgetSecrets: hmac.forgetSecrets };
}

/** A route whose operation the public graph leaves out runs on its subgraph directly (`RestRoute.subgraph`). */
function routesFor(config: EdgeConfig): RestRoute[] {
  return restRoutes.map((route) => {
    if (!route.subgraph) return route;
    const execute = subgraphExecutor(config.subgraphs, config.internalToken, route.subgraph);
    return { ...route, handle: (request) => route.handle(request, execute) };
  });
}

/**
 * The edge serves when its message bus (`nats`, or `messaging` in memory), Redis (if configured) and each subgraph it
 * reaches over HTTP is ready.
 */
function readinessChecks(config: EdgeConfig, redis: Redis | undefined): ReadinessChecks {
  const checks: ReadinessChecks = { ...config.readiness };
  checks[config.bus.driver === "nats" ? "nats" : "messaging"] = () => config.bus.ping();
  if (redis) checks.redis = () => redis.ping();
  for (const [name, endpoint] of Object.entries(config.subgraphs)) {
    if (!("url" in endpoint)) continue;
    checks[name] = async () => {
      const response = await fetch(new URL("/ready", endpoint.url));
      if (!response.ok) throw new Error(`${name} answered ${response.status}`);
    };
  }
  return checks;
}

/**
 * Listens on the public port. Once listening, an error the server emits (a failed accept: descriptors ran out)
 * is logged and answered by shedding idle connections, never thrown at the process, which would end every
 * terminal's connection at once.
 */
async function listen(server: Server, config: Pick<EdgeConfig, "port" | "host">) {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, resolve);
  });
  server.on("error", (error) => {
    if (isOutOfDescriptors(error)) return outOfDescriptors(error);
    logger.error("the public port could not accept a connection", { error });
  });
  const unregister = shedWhenOutOfDescriptors(() => server.closeIdleConnections());
  server.once("close", unregister);
}

/** How long in-flight requests may take to finish on shutdown before their connections are cut. */
const DRAIN_MS = 4000;

export async function startEdge(config: EdgeConfig) {
  const supergraphSdl = readFileSync(join(repositoryRoot, "schema", "supergraph.graphql"), "utf8");
  const limits = graphQLLimits(config.graphqlLimits);
  const graphql = await startGraphQL({
    supergraphSdl,
    subgraphs: config.subgraphs,
    internalToken: config.internalToken,
    limits,
    schemaDetails: config.graphqlSchemaDetails ?? false,
  });
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  const clock = config.clock ?? (() => new Date());
  const limiter = createRateLimiter({
    limits: config.rateLimits,
    redis,
    keyPrefix: config.redisKeyPrefix,
    whenRedisDown: config.rateLimitRedisDown,
    now: () => clock().getTime(),
  });
  const callSubgraph = createSubgraphClient(config.subgraphs, config.internalToken);
  const authenticator = createAuthenticator(callSubgraph, config.clock, config.apiAudience);
  const gateway = createGateway(config, limiter, callSubgraph, redis);
  const keyRevocations = await forgetSecretsOnRevocation(config.bus, gateway.forgetSecrets);
  const server = createEdgeServer({
    graphql: graphql.server,
    router: createRouter(routesFor(config)),
    gateway: gateway.front,
    authenticator,
    limiter,
    devMessages: config.devMessages,
    httpTimeouts: config.httpTimeouts,
    connectionLimits: config.connectionLimits,
    publicUrl: config.publicUrl,
    apiReference: createApiReference(restRoutes, supergraphSdl),
    consoleAssets: createConsoleAssets(join(repositoryRoot, "apps", "console", "dist")),
  });
  const websocket = await attachWebSocket(server, graphql.server, graphql.apiSchema, authenticator, {
    limiter,
    limits,
    bus: config.bus,
    callSubgraph,
    payments: subgraphExecutor(config.subgraphs, config.internalToken, "payments"),
    clock: config.clock,
  });
  await listen(server, config);
  const admin = await serveOperatorPort(
    config.admin ?? { port: 0, host: "127.0.0.1" },
    readinessChecks(config, redis),
    { text: edgeMetrics, contentType: metrics.contentType },
    config.jobs,
  ).catch(async (error: unknown) => {
    // An operator port already taken stops the start; the public port must not stay open behind it.
    await websocket.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    throw error;
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    /** The operator's listener: `${adminUrl}/ready`, `${adminUrl}/metrics`. */
    adminUrl: admin.url,
    async close() {
      await admin.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
      await websocket.close();
      await closed;
      clearTimeout(cut);
      await graphql.server.stop();
      await keyRevocations.stop();
      authenticator.stop();
      redis?.disconnect();
    },
  };
}
