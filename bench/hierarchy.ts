// The portal UI's hierarchy read (schema/examples/hierarchy.graphql) through the gateway, with and without the
// cross-subgraph counts, beside the same data read by one SQL statement per subgraph: the physical floor.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { demoUser, logIn } from "@pos-cloud/test-support/platform";
import { operator } from "@pos-cloud/test-support/portal-seed";
import { ulid } from "ulid";
import type { DemoFile } from "../apps/platform/src/demo";
import type { RunningPlatform } from "../apps/platform/src/platform";
import { autocannon, type LoadLength } from "./autocannon";
import { type BenchPlatform, onBenchPlatform } from "./platform";
import { loadLength, requireClean, type Scale } from "./scale";

/** A portal UI loads the tree once per page view: a few at a time, not a flood. */
const CONNECTIONS = 2;

export interface HierarchyFigures {
  requests: number;
  requests_per_second: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non_2xx: number;
}

export const hierarchyQuery = readFileSync(
  join(import.meta.dirname, "..", "schema", "examples", "hierarchy.graphql"),
  "utf8",
);
export const withoutCounts = hierarchyQuery.replace(/\s+open_orders_count\s+payment_intents_count/, "");

/** The scale's merchants and stores under the demo PSP; 2 devices, 2 open orders and 3 intents per store. */
export async function seedHierarchy(
  platform: RunningPlatform,
  demo: DemoFile,
  scale: Pick<Scale, "merchants" | "storesPerMerchant">,
): Promise<number[]> {
  const storeIds: number[] = [];
  const merchantOf: number[] = [];
  const merchantIds: number[] = [];
  for (let m = 0; m < scale.merchants; m++) {
    const merchant = await platform.portal.tenants.createMerchant(operator, {
      psp_id: demo.psp.id,
      code: `BENCH${m}`,
      name: `Bench merchant ${m}`,
    });
    merchantIds.push(merchant.id);
    for (let s = 0; s < scale.storesPerMerchant; s++) {
      const store = await platform.portal.tenants.createStore(operator, {
        merchant_id: merchant.id,
        code: `S${s}`,
        name: `Bench store ${m}-${s}`,
      });
      storeIds.push(store.id);
      merchantOf.push(merchant.id);
    }
  }
  await platform.portal.db.query(
    `INSERT INTO devices (id, serial_number, merchant_id, store_id, status, model, manufacturer, updated_at)
     SELECT gen_random_uuid(), 'BENCH-' || s.store_id || '-' || n, s.merchant_id, s.store_id, 'active', 'P1', 'Acme', now()
     FROM unnest($1::int[], $2::int[]) AS s(store_id, merchant_id), generate_series(1, 2) AS n`,
    [storeIds, merchantOf],
  );
  await platform.pos.db.query(
    `INSERT INTO orders (id, merchant_id, store_id, order_number, order_type, status)
     SELECT gen_random_uuid(), s.merchant_id, s.store_id, 'B' || n, 'dine_in', 'open'
     FROM unnest($1::int[], $2::int[]) AS s(store_id, merchant_id), generate_series(1, 2) AS n`,
    [storeIds, merchantOf],
  );
  const intentIds = storeIds.flatMap(() => [`pi_${ulid()}`, `pi_${ulid()}`, `pi_${ulid()}`]);
  await platform.payments.db.query(
    `INSERT INTO payment_intents (id, merchant_id, store_id, client_partner_id, merchant_ref_id, amount, currency,
       payment_method_types, processing_mode, status, updated_at, expires_at)
     SELECT i.id, s.merchant_id, s.store_id, $4, i.id, 1200, 'JPY', '{qr_mpm}', 'pgw_processed',
       'requires_payment_method', now(), now() + interval '30 minutes'
     FROM unnest($1::int[], $2::int[]) WITH ORDINALITY AS s(store_id, merchant_id, n)
     JOIN unnest($3::text[]) WITH ORDINALITY AS i(id, k) ON (i.k - 1) / 3 + 1 = s.n`,
    [storeIds, merchantOf, intentIds, demo.partner.client_partner_id],
  );
  // Every write above queued a push of its merchant to the payment gateway, one at a time: 420 of them would run
  // during the measurement. This push waits behind them.
  await platform.portal.gatewaySync.sync(merchantIds);
  return storeIds;
}

/** The floor: the tree from the portal, open orders from pos and intents from payments, one statement each. */
async function floor(platform: RunningPlatform, pspId: number, seconds: number): Promise<HierarchyFigures> {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const started = performance.now();
    const tree = await platform.portal.db.query<{ store_id: number }>(
      `SELECT p.id AS psp_id, p.name AS psp_name, m.id AS merchant_id, m.name AS merchant_name, s.id AS store_id,
         s.name AS store_name, d.id AS device_id
       FROM psps p JOIN merchants m ON m.psp_id = p.id JOIN stores s ON s.merchant_id = m.id
       LEFT JOIN devices d ON d.store_id = s.id WHERE p.id = $1`,
      [pspId],
    );
    const storeIds = [...new Set(tree.map((row) => row.store_id))];
    await Promise.all([
      platform.pos.db.query(
        `SELECT store_id, count(*) FROM orders WHERE store_id = ANY($1) AND status IN ('open', 'billed') GROUP BY store_id`,
        [storeIds],
      ),
      platform.payments.db.query(
        "SELECT store_id, count(*) FROM payment_intents WHERE store_id = ANY($1) GROUP BY store_id",
        [storeIds],
      ),
    ]);
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10;
  return {
    requests: latencies.length,
    requests_per_second: Math.round(latencies.length / seconds),
    latency_p50_ms: at(0.5),
    latency_p99_ms: at(0.99),
    non_2xx: 0,
  };
}

export async function throughGateway(
  url: string,
  token: string,
  query: string,
  length: LoadLength,
  connections = CONNECTIONS,
): Promise<HierarchyFigures> {
  const result = await autocannon(
    {
      method: "POST",
      url,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ query }),
    },
    connections,
    length,
  );
  return {
    requests: result.requests.total,
    requests_per_second: Math.round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
  };
}

/**
 * A gateway run with the CPU time this process spent per request: the platform and PGlite run here, autocannon in a
 * child, so on a shared machine this moves less than the latencies when other processes take the cores.
 */
async function withCpu(run: () => Promise<HierarchyFigures>) {
  const started = process.cpuUsage();
  const figures = await run();
  const { user, system } = process.cpuUsage(started);
  return { ...figures, cpu_ms_per_request: Math.round((user + system) / 100 / figures.requests) / 10 };
}

/** On `shared`, the smoke run's platform, when given; on a platform of its own otherwise. */
export async function benchHierarchy(scale: Scale, shared?: BenchPlatform) {
  const { seconds } = scale;
  return onBenchPlatform(shared, "pos-cloud-bench-hierarchy-", {}, async ({ platform }) => {
    const demo: DemoFile = JSON.parse(readFileSync(platform.demoFile!, "utf8"));
    const storeIds = await seedHierarchy(platform, demo, scale);
    const { access_token } = await logIn(platform.baseUrl, demoUser(demo, "PSP_ADMIN"));
    const url = `${platform.baseUrl}/graphql`;
    // One answer checked before measuring, so a refused or empty query cannot pass for a fast one.
    const check = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${access_token}` },
      body: JSON.stringify({ query: hierarchyQuery }),
    });
    const answer = (await check.json()) as any;
    const stores = (answer.data?.psps?.nodes ?? []).flatMap((p: any) => p.merchants.flatMap((m: any) => m.stores));
    if (check.status !== 200 || stores.length < storeIds.length)
      throw new Error(
        `the hierarchy query answered ${check.status} with ${stores.length} stores: ${JSON.stringify(answer.errors)}`,
      );
    if (scale.warmupSeconds > 0)
      await throughGateway(url, access_token, hierarchyQuery, { seconds: scale.warmupSeconds });
    const length = loadLength(scale, seconds);
    const full = await withCpu(() => throughGateway(url, access_token, hierarchyQuery, length));
    const noCounts = await withCpu(() => throughGateway(url, access_token, withoutCounts, length));
    const oneClient = await withCpu(() => throughGateway(url, access_token, hierarchyQuery, length, 1));
    requireClean("hierarchy", {
      refused_full: full.non_2xx,
      refused_without_counts: noCounts.non_2xx,
      refused_one_client: oneClient.non_2xx,
    });
    const sqlFloor = await floor(platform, demo.psp.id, seconds);
    return {
      stores: stores.length,
      full,
      without_counts: noCounts,
      full_one_client: oneClient,
      sql_floor: sqlFloor,
      counts_ratio: Math.round((full.requests_per_second / noCounts.requests_per_second) * 100) / 100,
      floor_ratio: Math.round((full.requests_per_second / sqlFloor.requests_per_second) * 100) / 100,
    };
  });
}
