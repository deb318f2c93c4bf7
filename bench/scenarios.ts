import type { Request } from "./autocannon";

export interface ScenarioContext {
  baseUrl: string;
  /** The portal subgraph served on its own, for reads that skip the gateway. */
  portalUrl: string;
  demo: { store: { id: number } };
  /** A bearer token of the demo store's staff. */
  token: string;
  /** Headers that let the benchmark call a subgraph directly, as the gateway would. */
  hopHeaders: Record<string, string>;
}

export interface Scenario {
  name: string;
  description: string;
  connections: number;
  seconds: number;
  /** Built once the platform runs: ids and credentials are known only then. */
  request(context: ScenarioContext): Promise<Request>;
}

const json = { "content-type": "application/json" };
const bearer = (token: string) => ({ ...json, authorization: `Bearer ${token}` });
const storeQuery = (id: number, crossSubgraph: boolean) =>
  JSON.stringify({
    query: `query($id: Int!) { store(id: $id) { id name merchant { name } ${crossSubgraph ? "open_orders_count payment_intents_count" : ""} } }`,
    variables: { id },
  });

export const scenarios: Scenario[] = [
  {
    name: "health",
    description: "GET /health: the edge alone",
    connections: 20,
    seconds: 10,
    request: async ({ baseUrl }) => ({ method: "GET", url: `${baseUrl}/health` }),
  },
  {
    name: "store-query-gateway",
    description: "store with merchant (portal), open orders (pos) and intents (payments) through the gateway",
    connections: 20,
    seconds: 10,
    request: async ({ baseUrl, demo, token }) => ({
      method: "POST",
      url: `${baseUrl}/graphql`,
      headers: bearer(token),
      body: storeQuery(demo.store.id, true),
    }),
  },
  {
    name: "store-query-gateway-portal-only",
    description: "store with merchant through the gateway: portal fields only",
    connections: 20,
    seconds: 10,
    request: async ({ baseUrl, demo, token }) => ({
      method: "POST",
      url: `${baseUrl}/graphql`,
      headers: bearer(token),
      body: storeQuery(demo.store.id, false),
    }),
  },
  {
    name: "store-query-portal-direct",
    description: "the same portal fields from the portal subgraph directly, no gateway",
    connections: 20,
    seconds: 10,
    request: async ({ portalUrl, demo, hopHeaders }) => ({
      method: "POST",
      url: portalUrl,
      headers: { ...json, ...hopHeaders },
      body: storeQuery(demo.store.id, false),
    }),
  },
];
