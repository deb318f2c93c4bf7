import { type HttpTimeouts, parseEnvironment, settings } from "@pos-cloud/common";
import type { MessagingConfig } from "@pos-cloud/common/messaging";
import type { RateLimits } from "@pos-cloud/rest-compat";
import { z } from "zod";
import type { ConnectionLimits } from "./connection-limits";
import type { GraphQLLimits } from "./graphql-limits";

const subgraphUrl = (port: number) => z.url({ protocol: /^https?$/ }).default(`http://127.0.0.1:${port}/`);

/** A limit; unset keeps the default (GraphQL: apps/edge/src/graphql-limits.ts; requests: the spec's). */
const limit = z.coerce.number().int().positive().optional();

/** What one GraphQL operation may ask for and how many requests a minute each caller may send: operators tune these. */
export const limitSettings = {
  GRAPHQL_MAX_DEPTH: limit,
  GRAPHQL_MAX_ALIASES: limit,
  GRAPHQL_MAX_TOKENS: limit,
  GRAPHQL_MAX_DIRECTIVES: limit,
  GRAPHQL_MAX_COST: limit,
  GRAPHQL_DEFAULT_PAGE_SIZE: limit,
  GRAPHQL_TIMEOUT_MS: limit,
  GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION: limit,
  GRAPHQL_MAX_SUBSCRIPTIONS_PER_CALLER: limit,
  /** graphql-ws: how long a socket may take to send `connection_init`, and stay open without any operation. */
  GRAPHQL_WS_INIT_TIMEOUT_MS: limit,
  GRAPHQL_WS_IDLE_TIMEOUT_MS: limit,
  /** Connections (HTTP and WebSocket) one edge process holds at once, in all and per client address. */
  CONNECTIONS_MAX: limit,
  CONNECTIONS_PER_IP: limit,
  /** Gateway requests per minute per merchant, per store, per IP and in all; API requests per user and per IP. */
  RATE_LIMIT_MERCHANT: limit,
  RATE_LIMIT_STORE: limit,
  RATE_LIMIT_IP: limit,
  RATE_LIMIT_GLOBAL: limit,
  RATE_LIMIT_API: limit,
  /** How long a client may take to send its headers, its whole request, and between requests on one connection. */
  HTTP_HEADERS_TIMEOUT_MS: limit,
  HTTP_REQUEST_TIMEOUT_MS: limit,
  HTTP_KEEP_ALIVE_TIMEOUT_MS: limit,
};

type LimitSettings = { [K in keyof typeof limitSettings]?: number };

/** The limits the environment sets; the others keep their defaults. */
export function limitsFromEnvironment(e: LimitSettings): {
  graphqlLimits: Partial<GraphQLLimits>;
  rateLimits: Partial<RateLimits>;
  httpTimeouts: Partial<HttpTimeouts>;
  connectionLimits: Partial<ConnectionLimits>;
} {
  const defined = <T extends object>(values: T) =>
    Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
  return {
    graphqlLimits: defined({
      maxDepth: e.GRAPHQL_MAX_DEPTH,
      maxAliases: e.GRAPHQL_MAX_ALIASES,
      maxTokens: e.GRAPHQL_MAX_TOKENS,
      maxDirectives: e.GRAPHQL_MAX_DIRECTIVES,
      maxCost: e.GRAPHQL_MAX_COST,
      defaultPageSize: e.GRAPHQL_DEFAULT_PAGE_SIZE,
      timeoutMs: e.GRAPHQL_TIMEOUT_MS,
      maxSubscriptionsPerConnection: e.GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION,
      maxSubscriptionsPerCaller: e.GRAPHQL_MAX_SUBSCRIPTIONS_PER_CALLER,
      connectionInitTimeoutMs: e.GRAPHQL_WS_INIT_TIMEOUT_MS,
      idleConnectionMs: e.GRAPHQL_WS_IDLE_TIMEOUT_MS,
    }),
    rateLimits: defined({
      merchant: e.RATE_LIMIT_MERCHANT,
      store: e.RATE_LIMIT_STORE,
      ip: e.RATE_LIMIT_IP,
      global: e.RATE_LIMIT_GLOBAL,
      api: e.RATE_LIMIT_API,
    }),
    httpTimeouts: defined({
      headersMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    }),
    connectionLimits: defined({ total: e.CONNECTIONS_MAX, perIp: e.CONNECTIONS_PER_IP }),
  };
}

const schema = z.object({
  /** `production` turns GraphQL introspection and field suggestions off. */
  NODE_ENV: z.string().default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default("127.0.0.1"),
  /** The operator's `/health`, `/ready` and `/metrics`, shared by the instances like PORT; loopback unless set. */
  ADMIN_PORT: settings.adminPort,
  ADMIN_HOST: settings.adminHost,
  /** Processes sharing PORT (node:cluster); a crashed one is replaced. */
  EDGE_INSTANCES: z.coerce.number().int().min(1).max(64).default(1),
  PORTAL_URL: subgraphUrl(4101),
  POS_URL: subgraphUrl(4102),
  PAYMENTS_URL: subgraphUrl(4103),
  /** The credential of the hop to the subgraphs: the same value as theirs. */
  INTERNAL_TOKEN: z.string().min(32, "must be at least 32 characters"),
  OTEL_EXPORTER_OTLP_ENDPOINT: settings.otlpEndpoint.optional(),
  NATS_URL: settings.natsUrl,
  NATS_NAMESPACE: settings.natsNamespace,
  REDIS_URL: settings.redisUrl.default("redis://127.0.0.1:6379"),
  REDIS_KEY_PREFIX: settings.redisKeyPrefix,
  /** While Redis is unreachable: count in each process's memory (`open`) or answer 503 (`closed`). */
  RATE_LIMIT_REDIS_DOWN: z.enum(["open", "closed"]).default("open"),
  CORS_ORIGINS: settings.corsOrigins,
  API_AUDIENCE: settings.apiAudience,
  /** The platform's address as its clients reach it (the discovery document's issuer); else the request's Host. */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  ...limitSettings,
});

export interface EdgeEnvironment {
  port: number;
  host: string;
  admin: { port: number; host: string };
  instances: number;
  subgraphUrls: Record<"portal" | "pos" | "payments", string>;
  internalToken: string;
  /** Where traces go; absent, tracing is off. */
  otlpEndpoint?: string;
  messaging: MessagingConfig;
  redisUrl: string;
  redisKeyPrefix: string;
  rateLimitRedisDown: "open" | "closed";
  corsOrigins: string[];
  apiAudience: string;
  publicUrl?: string;
  graphqlSchemaDetails: boolean;
  graphqlLimits: Partial<GraphQLLimits>;
  rateLimits: Partial<RateLimits>;
  httpTimeouts: Partial<HttpTimeouts>;
  connectionLimits: Partial<ConnectionLimits>;
}

/** The standalone edge's configuration (cluster mode); every problem is listed before exiting. */
export function loadEdgeEnvironment(env: NodeJS.ProcessEnv = process.env): EdgeEnvironment {
  const e = parseEnvironment(schema, env);
  return {
    port: e.PORT,
    host: e.HOST,
    admin: { port: e.ADMIN_PORT, host: e.ADMIN_HOST },
    instances: e.EDGE_INSTANCES,
    subgraphUrls: { portal: e.PORTAL_URL, pos: e.POS_URL, payments: e.PAYMENTS_URL },
    internalToken: e.INTERNAL_TOKEN,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    messaging: { driver: "nats", url: e.NATS_URL, namespace: e.NATS_NAMESPACE },
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    rateLimitRedisDown: e.RATE_LIMIT_REDIS_DOWN,
    corsOrigins: e.CORS_ORIGINS,
    apiAudience: e.API_AUDIENCE,
    publicUrl: e.PUBLIC_URL,
    graphqlSchemaDetails: e.NODE_ENV !== "production",
    ...limitsFromEnvironment(e),
  };
}
