import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import {
  createGatewayFront,
  createHmacVerifier,
  createRateLimiter,
  createRouter,
  memoryCounters,
  type PartnerSecrets,
  type RateLimiter,
  type RateLimits,
  redisCounters,
  restRoutes,
} from "@pos-cloud/rest-compat";
import { createAuthenticator } from "./authenticate";
import { type SubgraphEndpoint, startGraphQL } from "./gateway";
import { createEdgeServer } from "./server";
import { type CallSubgraph, createSubgraphClient } from "./subgraph-client";
import { attachWebSocket } from "./websocket";

export type { SubgraphEndpoint } from "./gateway";

export interface EdgeConfig {
  port: number;
  host: string;
  subgraphs: Record<string, SubgraphEndpoint>;
  internalToken: string;
  /** Web-view origins allowed on the payment-token endpoints. */
  corsOrigins?: string[];
  /** Rate-limit counters in Redis (shared by edge instances); in memory when absent. */
  redisUrl?: string;
  redisKeyPrefix?: string;
  /** The spec's limits unless a test or benchmark changes them. */
  rateLimits?: Partial<RateLimits>;
  /** Token expiry and key caching read it; tests move it together with the portal's. */
  clock?: () => Date;
  /** The embedded platform's recorded messages, served at `GET /api/v1/dev/messages`. */
  devMessages?: () => unknown[];
}

const partnerCredentialsQuery = `query PartnerCredentials($client_id: String!) {
  partnerCredentials(client_id: $client_id) { client_partner_id secrets }
}`;

function createGateway(config: EdgeConfig, limiter: RateLimiter, callSubgraph: CallSubgraph) {
  const hmac = createHmacVerifier({
    fetchSecrets: async (client_id) =>
      (await callSubgraph("payments", partnerCredentialsQuery, { client_id })).partnerCredentials as PartnerSecrets,
  });
  return createGatewayFront({ hmac, limiter, corsOrigins: config.corsOrigins ?? [] });
}

/** How long in-flight requests may take to finish on shutdown before their connections are cut. */
const DRAIN_MS = 4000;

export async function startEdge(config: EdgeConfig) {
  const supergraphSdl = readFileSync(join(repositoryRoot, "schema", "supergraph.graphql"), "utf8");
  const graphql = await startGraphQL({
    supergraphSdl,
    subgraphs: config.subgraphs,
    internalToken: config.internalToken,
  });
  const counters = config.redisUrl ? redisCounters(config.redisUrl, config.redisKeyPrefix) : memoryCounters();
  const clock = config.clock ?? (() => new Date());
  const limiter = createRateLimiter({ limits: config.rateLimits, counters, now: () => clock().getTime() });
  const callSubgraph = createSubgraphClient(config.subgraphs, config.internalToken);
  const authenticator = createAuthenticator(callSubgraph, config.clock);
  const server = createEdgeServer({
    graphql: graphql.server,
    router: createRouter(restRoutes),
    gateway: createGateway(config, limiter, callSubgraph),
    authenticator,
    limiter,
    devMessages: config.devMessages,
  });
  const websocket = attachWebSocket(server, graphql.server, graphql.apiSchema, authenticator, config.clock);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
      await websocket.close();
      await closed;
      clearTimeout(cut);
      await graphql.server.stop();
      await counters.close();
    },
  };
}
