// npm run bench [-- [--smoke] [--storage=pglite|postgres] scenario ...]
// Runs the chosen scenarios (all by default) and writes bench/results/<scenario>.json. Two cores serve client and
// server alike: compare ratios within one run. `--smoke` runs every scenario for a few seconds (bench/scale.ts) on
// one shared embedded platform, writes no results and fails when one errors or loses an event. `--storage` runs only
// the parts on that storage (the embedded platform's PGlite, or PostgreSQL with NATS and Redis); without it, what
// needs PostgreSQL is skipped, and said so, in a smoke run where PostgreSQL does not answer.
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { tuneGarbageCollection } from "@pos-cloud/common";
import { freePort } from "@pos-cloud/test-support/cluster";
import pg from "pg";
import { benchCreateIntent, type Figures } from "./create-intent";
import { type BenchPlatform, startBenchPlatform } from "./platform";
import { measuredScale, requireClean, smokeScale } from "./scale";
import { runLoadScenarios, scenarioNames, scenarios } from "./scenarios";
import { measureStartup } from "./startup";

// The platform runs in this process, tuned as `npm start` tunes its own.
tuneGarbageCollection();

const args = process.argv.slice(2);
const wanted = args.filter((arg) => !arg.startsWith("--"));
const scale = args.includes("--smoke") ? smokeScale : measuredScale;
const storage = args.find((arg) => arg.startsWith("--storage="))?.slice("--storage=".length);
const POSTGRES = "postgresql://root@127.0.0.1:5432";
const unknown = wanted.filter((name) => !scenarioNames.includes(name));
if (unknown.length > 0 || (storage !== undefined && !["pglite", "postgres"].includes(storage))) {
  console.error(`unknown scenario or storage; scenarios: ${scenarioNames.join(", ")}; --storage=pglite|postgres`);
  process.exit(2);
}
const chosen = (name: string) => wanted.length === 0 || wanted.includes(name);
const resultsDir = join(import.meta.dirname, "results");
mkdirSync(resultsDir, { recursive: true });
/** A smoke run's figures say nothing of speed: they never replace a measured result. */
const record = (scenario: string, figures: object) => {
  if (!scale.smoke) writeFileSync(join(resultsDir, `${scenario}.json`), `${JSON.stringify(figures, null, 2)}\n`);
};
const measuredAt = () => ({ measured_at: new Date().toISOString() });
const load = () => `load average ${loadavg()[0]!.toFixed(2)}`;
/** `work`, then how long it took, on a line of its own (indented: no scenario's report). */
async function timed<T>(what: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  console.log(`  ${what} took ${Math.round((performance.now() - started) / 1000)} s`);
  return result;
}

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
const embedded = storage !== "postgres";
const postgresWanted = storage !== "pglite";
const withPostgres = postgresWanted && (await postgresAnswers());
if (postgresWanted && !withPostgres && (!scale.smoke || storage === "postgres")) {
  console.error(`PostgreSQL does not answer at ${POSTGRES}: the benchmarks compare against it`);
  process.exit(1);
}
const skipped = (what: string) =>
  console.log(
    `${what.padEnd(29)} skipped: ${postgresWanted ? `PostgreSQL does not answer at ${POSTGRES}` : "--storage=pglite"}`,
  );
const postgresBase = withPostgres ? POSTGRES : undefined;

async function createIntent(on: "postgres" | "pglite", shared: BenchPlatform | undefined) {
  const { seconds, warmupSeconds } = scale;
  const result = await benchCreateIntent({
    storage: on,
    postgresBase: POSTGRES,
    connections: 10,
    seconds,
    warmupSeconds,
    shared,
  });
  record(`create-intent-${on}`, { scenario: `create-intent-${on}`, ...result, ...measuredAt() });
  const { peak, half_peak, baseline, baseline_at_half_peak, ratio } = result;
  console.log(
    `create-intent (${on})`.padEnd(29),
    `${peak.requests_per_second} req/s p99 ${peak.latency_p99_ms} ms; at half: p99 ${half_peak?.latency_p99_ms} ms`,
    baseline ? `; plain pg ${baseline.requests_per_second} req/s, ratio ${ratio}` : "",
    baseline_at_half_peak ? `; plain pg at the same half rate: p99 ${baseline_at_half_peak.latency_p99_ms} ms` : "",
  );
  return peak;
}

async function tracing(measuredOff: Figures | undefined, restartShared?: () => Promise<BenchPlatform>) {
  const { benchTracing } = await import("./tracing");
  const result = await benchTracing(scale, measuredOff, restartShared);
  record("tracing", { scenario: "tracing", ...result, ...measuredAt() });
  console.log(
    "tracing (create-intent, pglite)".padEnd(29),
    `off ${result.off.requests_per_second} req/s p99 ${result.off.latency_p99_ms} ms; on ${result.on.requests_per_second}`,
    `req/s p99 ${result.on.latency_p99_ms} ms; on/off ${result.on_off_ratio}; ${result.spans_exported} spans exported`,
  );
}

async function hierarchy(shared: BenchPlatform | undefined) {
  const { benchHierarchy } = await import("./hierarchy");
  const result = await benchHierarchy(scale, shared);
  record("hierarchy", { scenario: "hierarchy", ...result, ...measuredAt() });
  const { full, without_counts, full_one_client, sql_floor } = result;
  console.log(
    `hierarchy (${result.stores} stores)`.padEnd(29),
    `full ${full.requests_per_second} req/s p50 ${full.latency_p50_ms} ms; without counts ${without_counts.requests_per_second} req/s`,
    `p50 ${without_counts.latency_p50_ms} ms; ratio ${result.counts_ratio}; SQL floor ${sql_floor.requests_per_second}/s;`,
    `one client: full p50 ${full_one_client.latency_p50_ms} ms; CPU per request: full ${full.cpu_ms_per_request} ms,`,
    `without counts ${without_counts.cpu_ms_per_request} ms; ${load()}`,
  );
}

async function events(shared: BenchPlatform | undefined) {
  const load_average_before = loadavg()[0]!.toFixed(2);
  const { benchEvents } = await import("./events");
  const result = await benchEvents(scale, { postgresBase, embedded: embedded ? { shared } : undefined });
  if (!withPostgres) skipped("events drain (postgres)");
  record("events", { scenario: "events", ...result, load_average_before, ...measuredAt() });
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
  console.log(`events`.padEnd(29), `load average before ${load_average_before}, after ${loadavg()[0]!.toFixed(2)}`);
}

async function terminalSimulator(shared: BenchPlatform | undefined) {
  const { benchTerminalSimulator, summary } = await import("./terminal-simulator");
  const seconds = scale.smoke ? scale.seconds : 30;
  const result = await benchTerminalSimulator(seconds, { postgresBase, embedded: embedded ? { shared } : undefined });
  if (!withPostgres) skipped("terminal-simulator (cluster)");
  record("terminal-simulator", { scenario: "terminal-simulator", ...result, ...measuredAt() });
  for (const [wiring, report] of [
    ["embedded", result.embedded],
    ["cluster", result.cluster],
  ] as const) {
    if (!report) continue;
    console.log(summary(wiring, report));
    if (!report.totals_equal || Object.keys(report.errors).length > 0)
      throw new Error(`terminal-simulator (${wiring}): a sale failed or the store's day differs from what was sold`);
  }
}

async function cluster(base: string) {
  const { benchCluster } = await import("./cluster");
  const result = await benchCluster(base, scale);
  record("cluster", { scenario: "cluster", ...result, ...measuredAt() });
  const lines = [
    ...(result.embedded_on_postgres ? [["embedded (PostgreSQL)", result.embedded_on_postgres] as const] : []),
    ...result.clusters.map((each) => [`cluster (${each.edges} edges, ${each.workers} workers)`, each] as const),
  ];
  for (const [name, wiring] of lines) {
    console.log(
      name.padEnd(29),
      `create-intent ${wiring.create_intent.requests_per_second} req/s p99 ${wiring.create_intent.latency_p99_ms} ms;`,
      `hierarchy ${wiring.hierarchy.requests_per_second} req/s p50 ${wiring.hierarchy.latency_p50_ms} ms; ${wiring.load}`,
    );
  }
}

async function startup(warmDataDir: string | undefined) {
  const result = {
    scenario: "startup",
    ...(await measureStartup(await freePort(), scale, warmDataDir)),
    ...measuredAt(),
  };
  requireClean("startup", { refused_under_load: result.load_non_2xx });
  record("startup", result);
  console.log(
    `startup`.padEnd(29),
    `cold ${result.cold_start_ms ?? "(not in a smoke run)"} ms  warm ${result.warm_start_ms} ms;`,
    `resident ${result.cold_idle_rss_mb ?? "-"} MB after cold, ${result.warm_idle_rss_mb} MB after warm,`,
    `${result.after_load_idle_rss_mb} MB after create-intent load (${result.load_requests_per_second} req/s,`,
    `non-2xx ${result.load_non_2xx}); ${load()}`,
  );
}

/**
 * The scenarios on the embedded platform. A smoke run starts one and shares it: each scenario's own start was most
 * of its time. A measured run gives each scenario a fresh platform, so that one's rows never weigh on another's
 * figures.
 */
async function embeddedScenarios() {
  const prefix = "pos-cloud-bench-smoke-";
  let shared = scale.smoke ? await timed("the shared platform's start", () => startBenchPlatform(prefix)) : undefined;
  let running = shared !== undefined;
  /** The shared platform closed, `between` run, and the platform started again on its storage. */
  async function restartShared(between: (dir: string) => Promise<void>) {
    const { dir } = shared!;
    await shared!.platform.close();
    running = false;
    await between(dir.path);
    shared = await startBenchPlatform(prefix, {}, dir);
    running = true;
    return shared;
  }
  try {
    // The cold start, on empty storage, is `npm start`'s first test (tests/e2e/commands.test.ts): a smoke run starts
    // warm, on the storage the shared platform has just made, and then starts that platform again.
    if (chosen("startup") && shared) await timed("startup", () => restartShared(startup));
    const loads = scenarios.filter((scenario) => chosen(scenario.name));
    if (loads.length > 0) await timed("the loads", () => runLoadScenarios(loads, scale, record, shared));
    const offPeak = chosen("create-intent")
      ? await timed("create-intent", () => createIntent("pglite", shared))
      : undefined;
    if (chosen("hierarchy")) await timed("hierarchy", () => hierarchy(shared));
    if (chosen("events")) await timed("events", () => events(shared));
    if (chosen("terminal-simulator")) await timed("terminal-simulator", () => terminalSimulator(shared));
    // Last: in a smoke run, the shared platform runs traced from here on.
    if (chosen("tracing"))
      await timed("tracing", () => tracing(offPeak, shared && (() => restartShared(async () => {}))));
    if (chosen("startup") && !shared) await startup(undefined);
  } finally {
    if (running) await shared?.platform.close();
    shared?.dir.remove();
  }
}

/** The parts on PostgreSQL, NATS and Redis that `embeddedScenarios` did not run already. */
async function postgresScenarios(base: string) {
  if (chosen("create-intent")) await createIntent("postgres", undefined);
  if (chosen("cluster")) await cluster(base);
  if (!embedded && chosen("events")) await events(undefined);
  if (!embedded && chosen("terminal-simulator")) await terminalSimulator(undefined);
}

const started = performance.now();
if (embedded && scenarioNames.some((name) => name !== "cluster" && chosen(name))) await embeddedScenarios();
if (postgresBase) await postgresScenarios(postgresBase);
else for (const part of ["create-intent (postgres)", "cluster"]) if (chosen(part.split(" ")[0]!)) skipped(part);
console.log(
  `${scale.smoke ? "smoke run" : "run"} done in ${Math.round((performance.now() - started) / 1000)} s; ${load()}`,
);
process.exit(0);
