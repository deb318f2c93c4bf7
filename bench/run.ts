// npm run bench [-- [--smoke] scenario ...]
// Starts the embedded platform in this process, drives each scenario with autocannon in a child process, and writes
// bench/results/<scenario>.json. Two cores serve client and server alike: compare ratios within one run. `--smoke`
// runs every scenario for a few seconds (bench/scale.ts), writes no results and fails when one errors or loses an
// event; what needs PostgreSQL is skipped, and said so, where PostgreSQL does not answer.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { callerHeaders, serveSubgraph, tuneGarbageCollection } from "@pos-cloud/common";
import pg from "pg";
import type { DemoFile } from "../apps/platform/src/demo";
import { autocannon } from "./autocannon";
import { benchCreateIntent } from "./create-intent";
import { startBenchPlatform } from "./platform";
import { measuredScale, requireClean, smokeScale } from "./scale";
import { scenarios } from "./scenarios";
import { measureStartup } from "./startup";

interface Measurement {
  scenario: string;
  description: string;
  connections: number;
  duration_seconds: number;
  requests_per_second: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non_2xx: number;
  errors: number;
  measured_at: string;
}

// The platform runs in this process, tuned as `npm start` tunes its own.
tuneGarbageCollection();

const wanted = process.argv.slice(2).filter((arg) => arg !== "--smoke");
const scale = process.argv.includes("--smoke") ? smokeScale : measuredScale;
const POSTGRES = "postgresql://root@127.0.0.1:5432";
const chosen = wanted.length > 0 ? scenarios.filter((s) => wanted.includes(s.name)) : scenarios;
const withStartup = wanted.length === 0 || wanted.includes("startup");
const withCreateIntent = wanted.length === 0 || wanted.includes("create-intent");
const withHierarchy = wanted.length === 0 || wanted.includes("hierarchy");
const withEvents = wanted.length === 0 || wanted.includes("events");
const withCluster = wanted.length === 0 || wanted.includes("cluster");
const withTracing = wanted.length === 0 || wanted.includes("tracing");
const withTerminals = wanted.length === 0 || wanted.includes("terminal-simulator");
const special = [withStartup, withCreateIntent, withHierarchy, withEvents, withCluster, withTracing, withTerminals];
if (chosen.length === 0 && !special.some(Boolean)) {
  console.error(
    `unknown scenario; known: startup, create-intent, hierarchy, events, cluster, tracing, terminal-simulator, ${scenarios.map((s) => s.name).join(", ")}`,
  );
  process.exit(2);
}
const resultsDir = join(import.meta.dirname, "results");
mkdirSync(resultsDir, { recursive: true });
/** A smoke run's figures say nothing of speed: they never replace a measured result. */
const record = (scenario: string, figures: object) => {
  if (!scale.smoke) writeFileSync(join(resultsDir, `${scenario}.json`), `${JSON.stringify(figures, null, 2)}\n`);
};

async function postgresAnswers() {
  const client = new pg.Client({ connectionString: `${POSTGRES}/postgres`, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
const withPostgres = await postgresAnswers();
if (!withPostgres && !scale.smoke) {
  console.error(`PostgreSQL does not answer at ${POSTGRES}: the benchmarks compare against it`);
  process.exit(1);
}
const skipped = (what: string) => console.log(`${what.padEnd(29)} skipped: PostgreSQL does not answer at ${POSTGRES}`);

if (withStartup) {
  const startup = {
    scenario: "startup",
    ...(await measureStartup(4999, scale)),
    measured_at: new Date().toISOString(),
  };
  requireClean("startup", { refused_under_load: startup.load_non_2xx });
  record("startup", startup);
  console.log(
    `startup                      cold ${startup.cold_start_ms} ms  warm ${startup.warm_start_ms} ms;`,
    `resident ${startup.cold_idle_rss_mb} MB after cold, ${startup.warm_idle_rss_mb} MB after warm,`,
    `${startup.after_load_idle_rss_mb} MB after create-intent load (${startup.load_requests_per_second} req/s,`,
    `non-2xx ${startup.load_non_2xx}); load average ${loadavg()[0]!.toFixed(2)}`,
  );
}
if (withCreateIntent) {
  for (const storage of withPostgres ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
    const result = await benchCreateIntent({
      storage,
      postgresBase: POSTGRES,
      connections: 10,
      seconds: scale.seconds,
      warmupSeconds: scale.warmupSeconds,
    });
    const measured = { scenario: `create-intent-${storage}`, ...result, measured_at: new Date().toISOString() };
    record(`create-intent-${storage}`, measured);
    const { peak, half_peak, baseline, baseline_at_half_peak, ratio } = result;
    console.log(
      `create-intent (${storage})`.padEnd(29),
      `${peak.requests_per_second} req/s p99 ${peak.latency_p99_ms} ms; at half: p99 ${half_peak.latency_p99_ms} ms`,
      baseline ? `; plain pg ${baseline.requests_per_second} req/s, ratio ${ratio}` : "",
      baseline_at_half_peak ? `; plain pg at the same half rate: p99 ${baseline_at_half_peak.latency_p99_ms} ms` : "",
    );
  }
  if (!withPostgres) skipped("create-intent (postgres)");
}
if (withHierarchy) {
  const { benchHierarchy } = await import("./hierarchy");
  const result = await benchHierarchy(scale);
  record("hierarchy", { scenario: "hierarchy", ...result, measured_at: new Date().toISOString() });
  const { full, without_counts, full_one_client, sql_floor } = result;
  console.log(
    `hierarchy (${result.stores} stores)`.padEnd(29),
    `full ${full.requests_per_second} req/s p50 ${full.latency_p50_ms} ms; without counts ${without_counts.requests_per_second} req/s`,
    `p50 ${without_counts.latency_p50_ms} ms; ratio ${result.counts_ratio}; SQL floor ${sql_floor.requests_per_second}/s;`,
    `one client: full p50 ${full_one_client.latency_p50_ms} ms; CPU per request: full ${full.cpu_ms_per_request} ms,`,
    `without counts ${without_counts.cpu_ms_per_request} ms; load average ${loadavg()[0]!.toFixed(2)}`,
  );
}
if (withEvents) {
  const load_average_before = loadavg()[0]!.toFixed(2);
  const { benchEvents } = await import("./events");
  const result = await benchEvents(withPostgres ? POSTGRES : undefined, scale);
  if (!withPostgres) skipped("events drain (postgres)");
  record("events", { scenario: "events", ...result, load_average_before, measured_at: new Date().toISOString() });
  for (const drain of result.drains) {
    console.log(
      `events drain (${drain.storage}, ${drain.bus}, ${drain.publishers}×${drain.consumers})`.padEnd(29),
      `${drain.events_per_second} events/s; duplicates ${drain.duplicates_at_publisher} at the publisher,`,
      `${drain.duplicates_at_consumer} at the consumer; lost ${drain.lost}; out of order ${drain.order_violations}`,
    );
  }
  for (const each of result.notification) {
    console.log(
      `events notification`.padEnd(29),
      `${each.clients} clients, ${each.pace}: p50 ${each.latency_p50_ms} ms p99 ${each.latency_p99_ms} ms`,
      `max ${each.latency_max_ms} ms (${each.received} received)`,
    );
  }
  console.log(`load average before ${load_average_before}, after ${loadavg()[0]!.toFixed(2)}`);
}
if (withTracing) {
  const { benchTracing } = await import("./tracing");
  const result = await benchTracing(scale);
  record("tracing", { scenario: "tracing", ...result, measured_at: new Date().toISOString() });
  console.log(
    "tracing (create-intent, pglite)".padEnd(29),
    `off ${result.off.requests_per_second} req/s p99 ${result.off.latency_p99_ms} ms; on ${result.on.requests_per_second}`,
    `req/s p99 ${result.on.latency_p99_ms} ms; on/off ${result.on_off_ratio}; ${result.spans_exported} spans exported`,
  );
}
if (withCluster && !withPostgres) skipped("cluster");
if (withCluster && withPostgres) {
  const { benchCluster } = await import("./cluster");
  const result = await benchCluster(POSTGRES, scale);
  record("cluster", { scenario: "cluster", ...result, measured_at: new Date().toISOString() });
  for (const [name, wiring] of [
    ["embedded (PostgreSQL)", result.embedded_on_postgres],
    ["cluster", result.cluster],
  ] as const) {
    console.log(
      `${name}`.padEnd(29),
      `create-intent ${wiring.create_intent.requests_per_second} req/s p99 ${wiring.create_intent.latency_p99_ms} ms;`,
      `hierarchy ${wiring.hierarchy.requests_per_second} req/s p50 ${wiring.hierarchy.latency_p50_ms} ms`,
    );
  }
  console.log(
    `cluster / embedded`.padEnd(29),
    `create-intent ${result.create_intent_ratio}, hierarchy ${result.hierarchy_ratio}`,
  );
}
if (withTerminals) {
  const { benchTerminalSimulator, summary } = await import("./terminal-simulator");
  const result = await benchTerminalSimulator("postgresql://root@127.0.0.1:5432", scale.smoke ? scale.seconds : 30);
  record("terminal-simulator", { scenario: "terminal-simulator", ...result, measured_at: new Date().toISOString() });
  console.log(summary("embedded", result.embedded));
  console.log(summary("cluster", result.cluster));
  for (const report of [result.embedded, result.cluster])
    if (!report.totals_equal || Object.keys(report.errors).length > 0)
      throw new Error("terminal-simulator: a sale failed or the store's day differs from what the terminals sold");
}
if (chosen.length === 0) process.exit(0);

// Loaded where used: the test support's platform module registers vitest hooks when it loads (tests/support/contract.ts).
const { demoUser, logIn } = await import("../tests/support/platform");
const { platform, dir } = await startBenchPlatform("pos-cloud-bench-");
const portalDirect = await serveSubgraph(platform.subgraphs.portal, { port: 0, host: "127.0.0.1" });
const demo: DemoFile = JSON.parse(readFileSync(platform.demoFile!, "utf8"));
// Reads run as the demo store's staff: through the edge with its token, directly with the headers the gateway
// would send for it.
const staff = demoUser(demo, "STAFF");
const { access_token } = await logIn(platform.baseUrl, staff);
const context = {
  baseUrl: platform.baseUrl,
  portalUrl: portalDirect.url,
  demo,
  token: access_token,
  hopHeaders: callerHeaders(
    {
      type: "user",
      id: staff.user_id,
      role: "STAFF",
      pspId: demo.psp.id,
      merchantId: demo.merchant.id,
      storeId: demo.store.id,
      scopes: [],
    },
    platform.internalToken,
  ),
};

try {
  for (const scenario of chosen) {
    const seconds = scale.smoke ? scale.seconds : scenario.seconds;
    const result = await autocannon(await scenario.request(context), scenario.connections, seconds);
    // A load that got no answer at all would pass as clean: it is a failure too.
    requireClean(scenario.name, {
      refused: result.non2xx,
      errors: result.errors,
      runs_without_an_answer: result.requests.total === 0 ? 1 : 0,
    });
    const measurement: Measurement = {
      scenario: scenario.name,
      description: scenario.description,
      connections: scenario.connections,
      duration_seconds: seconds,
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
  await platform.close();
  dir.remove();
}
