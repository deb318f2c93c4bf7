// `npm run bench -- terminal-simulator`: sales per second through the whole platform. The terminal simulator
// (`npm run terminal -- simulate`, sdks/terminal/simulator/) sells by cash, QR and card from terminals of the demo
// store, first against the embedded platform (PGlite), then against the cluster (edge ×2, subgraph processes, workers,
// PostgreSQL, NATS, Redis), and checks the store's day against what they sold.
import { readFileSync } from "node:fs";
import { localClusterConfig } from "@pos-cloud/test-support/cluster";
import { temporaryDirectory } from "@pos-cloud/test-support/environment";
import { startCluster } from "../apps/platform/src/cluster";
import { type SimulationReport, simulate } from "../sdks/terminal/simulator/simulate";
import { freshDatabases } from "./create-intent";
import { type BenchPlatform, onBenchPlatform } from "./platform";

const TERMINALS = 4;
/** More than a terminal can sell: each sells back to back, so the platform is the limit. */
const RATE = 20;
const MIX = { cash: 50, qr: 30, card: 20 };
const unlimited = Number.MAX_SAFE_INTEGER;

const run = (baseUrl: string, demoFile: string, seconds: number) =>
  simulate({
    baseUrl,
    demo: JSON.parse(readFileSync(demoFile, "utf8")),
    terminals: TERMINALS,
    rate: RATE,
    mix: MIX,
    durationMs: seconds * 1000,
  });

const onEmbedded = (seconds: number, shared: BenchPlatform | undefined) =>
  onBenchPlatform(shared, "pos-cloud-bench-terminals-", {}, ({ platform }) =>
    run(platform.baseUrl, platform.demoFile!, seconds),
  );

async function onCluster(postgresBase: string, seconds: number) {
  const dir = temporaryDirectory("pos-cloud-bench-terminals-cluster-");
  const databases = await freshDatabases(postgresBase);
  // The cluster's processes take their limits from the environment, as an operator would set them.
  for (const name of ["MERCHANT", "STORE", "IP", "GLOBAL", "API"])
    process.env[`RATE_LIMIT_${name}`] = String(unlimited);
  try {
    const cluster = await startCluster(
      await localClusterConfig({ dataDir: dir.path, databaseUrls: databases.urls, workers: 2 }),
      { output: () => {} },
    );
    try {
      return await run(cluster.baseUrl, cluster.demoFile!, seconds);
    } finally {
      await cluster.close();
    }
  } finally {
    await databases.drop();
    dir.remove();
  }
}

/**
 * The simulator for `seconds` (a short duration makes it a smoke run) with `embedded` on the embedded platform
 * (`embedded.shared`, the smoke run's, when given), with `postgresBase` on the cluster.
 */
export async function benchTerminalSimulator(
  seconds: number,
  options: { postgresBase?: string; embedded?: { shared?: BenchPlatform } },
) {
  const embedded = options.embedded ? await onEmbedded(seconds, options.embedded.shared) : undefined;
  const cluster = options.postgresBase ? await onCluster(options.postgresBase, seconds) : undefined;
  return { terminals: TERMINALS, mix: MIX, seconds, embedded, cluster };
}

export const summary = (name: string, report: SimulationReport) =>
  [
    `terminal-simulator (${name})`.padEnd(29),
    `${report.sales_per_second} sales/s; whole sale p50 ${report.latency_ms.p50} ms p95 ${report.latency_ms.p95} ms`,
    `p99 ${report.latency_ms.p99} ms; errors ${JSON.stringify(report.errors)}; totals`,
    report.totals_equal ? "equal" : "DIFFERENT",
  ].join(" ");
