// `node --max-semi-space-size=16 --import tsx bench/create-intent-profile.ts [seconds]`: where one create's cost
// goes, for the capacity model of docs/benchmarks.md. The embedded platform on fresh PostgreSQL databases takes the
// create-intent load (bench/create-intent-client.ts) while V8's profiler samples its main thread; each sample is
// counted against the layer whose code is innermost on its stack: the edge (HTTP, REST, gateway), the payments
// subgraph (its GraphQL execution, services, repositories) or the background work (outbox publisher, bus,
// consumers). PostgreSQL's side is the CPU its backends serving these databases used, and the transactions each
// database committed, per create.
import { readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tuneGarbageCollection } from "@pos-cloud/common";
import pg from "pg";
import type { DemoFile } from "../apps/platform/src/demo";
import { freshDatabases, runClient } from "./create-intent";
import { startBenchPlatform } from "./platform";

type Frame = { functionName: string; url: string };
type Profile = { nodes: { id: number; callFrame: Frame; children?: number[] }[]; samples: number[] };

const layers: [string, RegExp][] = [
  ["background", /common\/src\/(outbox|messaging|jobs)|payment-follow-up|webhook-dispatcher|store-events|event-feeds/],
  ["subgraph", /common\/src\/subgraph\.ts|subgraphs\/(payments|pos|portal)\/src\//],
  ["edge", /apps\/edge\/|rest-compat\//],
];
const SAMPLING_US = 200;

/**
 * Sampled busy main-thread milliseconds per layer; what no layer's code is on the stack of (garbage collection, V8
 * itself, I/O callbacks, the libraries' own continuations) apart.
 */
function msByLayer(profile: Profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const ms: Record<string, number> = { edge: 0, subgraph: 0, background: 0, unattributed: 0 };
  for (const sample of profile.samples) {
    if (byId.get(sample)!.callFrame.functionName === "(idle)") continue;
    let layer = "unattributed";
    for (let id: number | undefined = sample; id !== undefined && layer === "unattributed"; id = parent.get(id)) {
      layer = layers.find(([, pattern]) => pattern.test(byId.get(id)!.callFrame.url))?.[0] ?? layer;
    }
    ms[layer]! += SAMPLING_US / 1000;
  }
  return ms;
}

/** CPU milliseconds the backends serving `databases` have used, and the transactions each database committed. */
async function postgresUsage(admin: pg.Client, databases: string[]) {
  const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = ANY($1)", [
    databases,
  ]);
  const ticks = Object.fromEntries(
    rows.map(({ pid }) => {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      return [pid, Number(fields[11]) + Number(fields[12])];
    }),
  );
  const commits = await admin.query<{ datname: string; xact_commit: string }>(
    "SELECT datname, xact_commit FROM pg_stat_database WHERE datname = ANY($1)",
    [databases],
  );
  return { ticks, commits: Object.fromEntries(commits.rows.map((row) => [row.datname, Number(row.xact_commit)])) };
}

tuneGarbageCollection();
const seconds = Number(process.argv[2] ?? 10);
const base = "postgresql://root@127.0.0.1:5432";
const databases = await freshDatabases(base);
const names = Object.values(databases.urls).map((url) => url.slice(url.lastIndexOf("/") + 1));
const { platform, dir } = await startBenchPlatform("pos-cloud-bench-profile-", databases.urls);
const admin = new pg.Client({ connectionString: `${base}/postgres` });
await admin.connect();
try {
  const demo: DemoFile = JSON.parse(readFileSync(platform.demoFile!, "utf8"));
  const client = { baseUrl: platform.baseUrl, partner: demo.partner, storeCode: demo.store.code, connections: 10 };
  await runClient({ ...client, seconds: 5 });
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: SAMPLING_US });
  const before = await postgresUsage(admin, names);
  const cpu = process.cpuUsage();
  await session.post("Profiler.start");
  const figures = await runClient({ ...client, seconds });
  const { profile } = await session.post("Profiler.stop");
  const used = process.cpuUsage(cpu);
  const after = await postgresUsage(admin, names);
  const creates = figures.requests_per_second * seconds;
  const perCreate = (value: number) => Math.round((value / creates) * 100) / 100;
  const backendTicks = Object.entries(after.ticks).reduce((sum, [pid, t]) => sum + t - (before.ticks[pid] ?? 0), 0);
  const layerMs = msByLayer(profile as Profile);
  console.log(
    JSON.stringify(
      {
        ...figures,
        creates,
        process_cpu_ms_per_create: perCreate((used.user + used.system) / 1000),
        main_thread_ms_per_create: Object.fromEntries(Object.entries(layerMs).map(([k, v]) => [k, perCreate(v)])),
        postgres_backend_cpu_ms_per_create: perCreate(backendTicks * 10),
        transactions_per_create: Object.fromEntries(
          names.map((name) => [name.split("_").at(-1), perCreate(after.commits[name]! - before.commits[name]!)]),
        ),
      },
      null,
      2,
    ),
  );
} finally {
  await admin.end();
  await platform.close();
  await databases.drop();
  dir.remove();
}
process.exit(0);
