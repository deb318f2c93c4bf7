import { readFileSync } from "node:fs";
import { type Caller, callerHeaders, serveSubgraph } from "@pos-cloud/common";
import type { DemoFile } from "../apps/platform/src/demo";
import { autocannon, type Request } from "./autocannon";
import { type BenchPlatform, onBenchPlatform } from "./platform";
import { loadLength, requireClean, type Scale } from "./scale";

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

/** Every scenario `npm run bench` knows: these loads and the scenarios with modules of their own. */
export const scenarioNames = [
  "startup",
  "create-intent",
  "hierarchy",
  "events",
  "cluster",
  "tracing",
  "terminal-simulator",
  ...scenarios.map((scenario) => scenario.name),
];

/** What a scenario's `request` is built from: the demo store's staff, through the edge and directly. */
async function scenarioContext({ platform }: BenchPlatform, portalUrl: string): Promise<ScenarioContext> {
  // Loaded where used: the test support's platform module registers vitest hooks when it loads
  // (tests/support/contract.ts).
  const { demoUser, logIn } = await import("@pos-cloud/test-support/platform");
  const demo: DemoFile = JSON.parse(readFileSync(platform.demoFile!, "utf8"));
  const staff = demoUser(demo, "STAFF");
  const { access_token } = await logIn(platform.baseUrl, staff);
  const caller: Caller = {
    type: "user",
    id: staff.user_id,
    role: "STAFF",
    pspId: demo.psp.id,
    merchantId: demo.merchant.id,
    storeId: demo.store.id,
    scopes: [],
  };
  return {
    baseUrl: platform.baseUrl,
    portalUrl,
    demo,
    token: access_token,
    hopHeaders: callerHeaders(caller, platform.internalToken),
  };
}

/**
 * The autocannon loads, one after another, on `shared` (the smoke run's platform) or on a platform of their own;
 * each `record`ed. A load refused, erring or answered not at all fails.
 */
export function runLoadScenarios(
  loads: Scenario[],
  scale: Scale,
  record: (scenario: string, figures: object) => void,
  shared: BenchPlatform | undefined,
) {
  return onBenchPlatform(shared, "pos-cloud-bench-", {}, async (bench) => {
    const portalDirect = await serveSubgraph(bench.platform.subgraphs.portal, { port: 0, host: "127.0.0.1" });
    try {
      const context = await scenarioContext(bench, portalDirect.url);
      for (const scenario of loads) {
        const length = loadLength(scale, scenario.seconds);
        const result = await autocannon(await scenario.request(context), scenario.connections, length);
        requireClean(scenario.name, {
          refused: result.non2xx,
          errors: result.errors,
          runs_without_an_answer: result.requests.total === 0 ? 1 : 0,
        });
        const measurement = {
          scenario: scenario.name,
          description: scenario.description,
          connections: scenario.connections,
          duration_seconds: result.duration,
          requests_per_second: Math.round(result.requests.average),
          latency_p50_ms: result.latency.p50,
          latency_p99_ms: result.latency.p99,
          non_2xx: result.non2xx,
          errors: result.errors,
          measured_at: new Date().toISOString(),
        };
        record(scenario.name, measurement);
        console.log(
          `${scenario.name.padEnd(28)} ${String(measurement.requests_per_second).padStart(7)} req/s  p50 ${measurement.latency_p50_ms} ms  p99 ${measurement.latency_p99_ms} ms  non-2xx ${measurement.non_2xx}`,
        );
      }
    } finally {
      await portalDirect.close();
    }
  });
}
