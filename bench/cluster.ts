// `npm run bench -- cluster`: the same PostgreSQL databases served first by the embedded platform (one process),
// then by the cluster (1 or 2 edge processes, three subgraph processes, 1 or 2 workers, NATS, Redis) in each shape
// the scale names: signed creates at full speed and the portal UI's hierarchy read, in one run, so that every wiring
// sees the same data and the same machine.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { localClusterConfig } from "@pos-cloud/test-support/cluster";
import { temporaryDirectory } from "@pos-cloud/test-support/environment";
import { demoUser, logIn } from "@pos-cloud/test-support/platform";
import { startCluster } from "../apps/platform/src/cluster";
import type { DemoFile } from "../apps/platform/src/demo";
import { startPlatform } from "../apps/platform/src/platform";
import { type Figures, freshDatabases, runClient } from "./create-intent";
import { type HierarchyFigures, hierarchyQuery, seedHierarchy, throughGateway } from "./hierarchy";
import { loadLength, requireClean, type Scale } from "./scale";

const CONNECTIONS = 10;
const unlimited = Number.MAX_SAFE_INTEGER;

interface Wiring {
  create_intent: Figures;
  hierarchy: HierarchyFigures;
  /** The machine's one-minute load average once the wiring was measured. */
  load: string;
}

/** Creates (after a warm-up) and the hierarchy read against the platform at `baseUrl`. */
async function measure(baseUrl: string, demo: DemoFile, scale: Scale): Promise<Wiring> {
  const client = { baseUrl, partner: demo.partner, storeCode: demo.store.code, connections: CONNECTIONS };
  if (scale.warmupSeconds > 0) await runClient({ ...client, seconds: scale.warmupSeconds });
  const createIntent = await runClient({ ...client, seconds: scale.seconds });
  const { access_token } = await logIn(baseUrl, demoUser(demo, "PSP_ADMIN"));
  const url = `${baseUrl}/graphql`;
  if (scale.warmupSeconds > 0)
    await throughGateway(url, access_token, hierarchyQuery, { seconds: scale.warmupSeconds });
  const hierarchy = await throughGateway(url, access_token, hierarchyQuery, loadLength(scale, scale.seconds));
  requireClean("cluster", { refused_creates: createIntent.non_2xx, refused_hierarchy_reads: hierarchy.non_2xx });
  return { create_intent: createIntent, hierarchy, load: `load average ${loadavg()[0]!.toFixed(2)}` };
}

/** The embedded platform on the databases, which seeds the hierarchy's tree for every wiring after it. */
async function onEmbedded(dataDir: string, databaseUrls: Record<"portal" | "pos" | "payments", string>, scale: Scale) {
  const embedded = await startPlatform({
    port: 0,
    host: "127.0.0.1",
    admin: { port: 0, host: "127.0.0.1" },
    dataDir,
    demo: true,
    databaseUrls,
    rateLimits: { merchant: unlimited, store: unlimited, ip: unlimited, global: unlimited, api: unlimited },
    connectionLimits: { total: unlimited, perIp: unlimited },
  });
  try {
    const demo: DemoFile = JSON.parse(readFileSync(embedded.demoFile!, "utf8"));
    await seedHierarchy(embedded, demo, scale);
    return await measure(embedded.baseUrl, demo, scale);
  } finally {
    await embedded.close();
  }
}

/**
 * A smoke run starts the cluster in its one shape and leaves the embedded platform on PostgreSQL to create-intent
 * (postgres), which drives the same path; a measured run compares each shape with it.
 */
export async function benchCluster(postgresBase: string, scale: Scale) {
  const dir = temporaryDirectory("pos-cloud-bench-cluster-");
  const databases = await freshDatabases(postgresBase);
  try {
    const embedded = scale.smoke ? undefined : await onEmbedded(dir.path, databases.urls, scale);
    // The cluster's processes take their limits from the environment, as an operator would set them.
    for (const name of ["MERCHANT", "STORE", "IP", "GLOBAL", "API"])
      process.env[`RATE_LIMIT_${name}`] = String(unlimited);
    const clusters: (Wiring & { edges: number; workers: number })[] = [];
    for (const { edges, workers } of scale.clusterShapes) {
      const cluster = await startCluster(
        await localClusterConfig({
          dataDir: dir.path,
          databaseUrls: databases.urls,
          edgeInstances: edges,
          workers,
          sandboxProcessingDelayMs: 1000,
        }),
        { output: () => {} },
      );
      try {
        const demo: DemoFile = JSON.parse(readFileSync(cluster.demoFile!, "utf8"));
        clusters.push({ edges, workers, ...(await measure(cluster.baseUrl, demo, scale)) });
      } finally {
        await cluster.close();
      }
    }
    const ratio = (of: (wiring: Wiring) => number, wiring: Wiring) =>
      embedded && Math.round((of(wiring) / of(embedded)) * 100) / 100;
    return {
      connections: CONNECTIONS,
      seconds: scale.seconds,
      from: "TypeScript sources (tsx)",
      embedded_on_postgres: embedded,
      clusters: clusters.map((wiring) => ({
        ...wiring,
        create_intent_ratio: ratio((w) => w.create_intent.requests_per_second, wiring),
        hierarchy_ratio: ratio((w) => w.hierarchy.requests_per_second, wiring),
      })),
    };
  } finally {
    await databases.drop();
    dir.remove();
  }
}
