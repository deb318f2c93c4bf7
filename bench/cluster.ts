// `npm run bench -- cluster`: the same PostgreSQL databases served first by the embedded platform (one process),
// then by the cluster (edge ×2, three subgraph processes, two workers, NATS, Redis): signed creates at full speed
// and the portal UI's hierarchy read, in one run, so the two wirings see the same data and the same machine.
import { readFileSync } from "node:fs";
import { startCluster } from "../apps/platform/src/cluster";
import type { DemoFile } from "../apps/platform/src/demo";
import { startPlatform } from "../apps/platform/src/platform";
import { localClusterConfig } from "../tests/support/cluster";
import { temporaryDirectory } from "../tests/support/environment";
import { demoUser, logIn } from "../tests/support/platform";
import { type Figures, freshDatabases, runClient } from "./create-intent";
import { type HierarchyFigures, hierarchyQuery, seedHierarchy, throughGateway } from "./hierarchy";
import { requireClean, type Scale } from "./scale";

const CONNECTIONS = 10;
const unlimited = Number.MAX_SAFE_INTEGER;

interface Wiring {
  create_intent: Figures;
  hierarchy: HierarchyFigures;
}

/** Creates (after a warm-up) and the hierarchy read against the platform at `baseUrl`. */
async function measure(baseUrl: string, demo: DemoFile, scale: Scale): Promise<Wiring> {
  const client = { baseUrl, partner: demo.partner, storeCode: demo.store.code, connections: CONNECTIONS };
  await runClient({ ...client, seconds: scale.warmupSeconds });
  const createIntent = await runClient({ ...client, seconds: scale.seconds });
  const { access_token } = await logIn(baseUrl, demoUser(demo, "PSP_ADMIN"));
  const url = `${baseUrl}/graphql`;
  await throughGateway(url, access_token, hierarchyQuery, scale.warmupSeconds);
  const hierarchy = await throughGateway(url, access_token, hierarchyQuery, scale.seconds);
  requireClean("cluster", { refused_creates: createIntent.non_2xx, refused_hierarchy_reads: hierarchy.non_2xx });
  return { create_intent: createIntent, hierarchy };
}

export async function benchCluster(postgresBase: string, scale: Scale) {
  const dir = temporaryDirectory("pos-cloud-bench-cluster-");
  const databases = await freshDatabases(postgresBase);
  try {
    const embedded = await startPlatform({
      port: 0,
      host: "127.0.0.1",
      admin: { port: 0, host: "127.0.0.1" },
      dataDir: dir.path,
      demo: true,
      databaseUrls: databases.urls,
      rateLimits: { merchant: unlimited, store: unlimited, ip: unlimited, global: unlimited, api: unlimited },
      connectionLimits: { total: unlimited, perIp: unlimited },
    });
    const demo: DemoFile = JSON.parse(readFileSync(embedded.demoFile!, "utf8"));
    let embeddedFigures: Wiring;
    try {
      await seedHierarchy(embedded, demo, scale);
      embeddedFigures = await measure(embedded.baseUrl, demo, scale);
    } finally {
      await embedded.close();
    }
    // The cluster's processes take their limits from the environment, as an operator would set them.
    for (const name of ["MERCHANT", "STORE", "IP", "GLOBAL", "API"])
      process.env[`RATE_LIMIT_${name}`] = String(unlimited);
    const cluster = await startCluster(
      await localClusterConfig({
        dataDir: dir.path,
        databaseUrls: databases.urls,
        workers: 2,
        sandboxProcessingDelayMs: 1000,
      }),
      { output: () => {} },
    );
    let clusterFigures: Wiring;
    try {
      clusterFigures = await measure(cluster.baseUrl, demo, scale);
    } finally {
      await cluster.close();
    }
    const ratio = (of: (wiring: Wiring) => number) =>
      Math.round((of(clusterFigures) / of(embeddedFigures)) * 100) / 100;
    return {
      connections: CONNECTIONS,
      seconds: scale.seconds,
      embedded_on_postgres: embeddedFigures,
      cluster: { edge_instances: 2, workers: 2, from: "TypeScript sources (tsx)", ...clusterFigures },
      create_intent_ratio: ratio((w) => w.create_intent.requests_per_second),
      hierarchy_ratio: ratio((w) => w.hierarchy.requests_per_second),
    };
  } finally {
    await databases.drop();
    dir.remove();
  }
}
