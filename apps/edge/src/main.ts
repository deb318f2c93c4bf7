// The edge on its own (cluster mode): gateway, REST compat and graphql-ws in front of the subgraphs over HTTP, events
// from NATS JetStream, rate-limit counters in Redis. EDGE_INSTANCES processes share PORT through node:cluster.
// Configuration: src/environment.ts.
import cluster from "node:cluster";
import { guardAgainstDescriptorExhaustion, stopOnSignals, tracingFor, tuneGarbageCollection } from "@pos-cloud/common";
import { openMessageBus } from "@pos-cloud/common/messaging";
import { loadEdgeEnvironment } from "./environment";
import { startEdge } from "./index";
import { aggregateInstanceMetrics } from "./instance-metrics";

const config = loadEdgeEnvironment();

/**
 * The primary forks the instances and replaces one that dies after it listened (one that could not start would
 * fail again: the primary exits instead); on a signal it stops them and waits. It also sums their metrics for a
 * scrape of the shared port.
 */
function superviseInstances() {
  let stopping = false;
  const listened = new Set<number>();
  cluster.on("listening", (worker) => listened.add(worker.id));
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) return;
    if (!listened.has(worker.id)) {
      console.error("an edge instance could not start; stopping");
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill("SIGTERM");
      process.exit(1);
    }
    console.error(`edge instance ${worker.process.pid} ended (${signal ?? code}); starting another`);
    cluster.fork();
  });
  for (let i = 0; i < config.instances; i++) cluster.fork();
  aggregateInstanceMetrics();
  stopOnSignals("edge", async () => {
    stopping = true;
    const instances = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    await Promise.all(
      instances.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once("exit", () => resolve());
            worker.process.kill("SIGTERM");
          }),
      ),
    );
  });
}

async function serveEdge() {
  guardAgainstDescriptorExhaustion("edge");
  tuneGarbageCollection();
  await tracingFor("pos-cloud-edge", config.otlpEndpoint);
  const bus = await openMessageBus(config.messaging);
  const { portal, pos, payments } = config.subgraphUrls;
  const edge = await startEdge({
    port: config.port,
    host: config.host,
    admin: config.admin,
    internalToken: config.internalToken,
    bus,
    corsOrigins: config.corsOrigins,
    apiAudience: config.apiAudience,
    publicUrl: () => config.publicUrl,
    redisUrl: config.redisUrl,
    redisKeyPrefix: config.redisKeyPrefix,
    rateLimitRedisDown: config.rateLimitRedisDown,
    graphqlSchemaDetails: config.graphqlSchemaDetails,
    graphqlLimits: config.graphqlLimits,
    rateLimits: config.rateLimits,
    httpTimeouts: config.httpTimeouts,
    connectionLimits: config.connectionLimits,
    subgraphs: { portal: { url: portal }, pos: { url: pos }, payments: { url: payments } },
  }).catch(async (error: unknown) => {
    await bus.close();
    throw error;
  });
  console.log(`edge ${process.pid} at http://${config.host}:${edge.port} (operator ${edge.adminUrl})`);
  stopOnSignals("edge", async () => {
    await edge.close();
    await bus.close();
  });
}

if (cluster.isPrimary && config.instances > 1) {
  superviseInstances();
} else {
  await serveEdge().catch((error: unknown) => {
    console.error(`the edge could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
