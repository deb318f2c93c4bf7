import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import pg from "pg";
import { type RunningCluster, startCluster } from "../../apps/platform/src/cluster";
import type { ClusterConfig, SubgraphName } from "../../apps/platform/src/cluster-environment";
import type { DemoFile } from "../../apps/platform/src/demo";
import { isolatedStorage } from "./databases";
import { natsUrl, redisUrl, temporaryDirectory } from "./environment";

/** A port nothing listens on now, for a process that must be told its port before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A cluster on this machine's engines: free ports, 2 edge instances and 1 worker, a NATS namespace and a Redis key
 * prefix of its own, the demo tenant, no sandbox delay. What a test or benchmark varies goes in `settings`.
 */
export async function localClusterConfig(
  settings: Pick<ClusterConfig, "dataDir" | "databaseUrls"> & Partial<ClusterConfig>,
): Promise<ClusterConfig> {
  const namespace = `test_${randomBytes(4).toString("hex")}`;
  const [port, sandbox, portal, pos, payments] = await Promise.all(Array.from({ length: 5 }, () => freePort()));
  return {
    port: port!,
    host: "127.0.0.1",
    edgeInstances: 2,
    workers: 1,
    ports: { sandbox: sandbox!, portal: portal!, pos: pos!, payments: payments! },
    demo: true,
    nats: { url: natsUrl, namespace },
    redis: { url: redisUrl!, keyPrefix: namespace },
    allowPrivateWebhookUrls: false,
    paymentsPollIntervalMs: 5000,
    sandboxProcessingDelayMs: 0,
    ...settings,
  };
}

export interface TestCluster {
  cluster: RunningCluster;
  demo: DemoFile;
  /** The payments database, reached directly (not through `reach`), for the test's own reads. */
  payments: pg.Client;
  /** Every line the processes printed so far, prefixed with the process's name (`[edge] ...`). */
  output: string[];
  /** Why the cluster stopped by itself (a process ended), if it did. */
  failure(): string | undefined;
  close(): Promise<void>;
}

/**
 * `startCluster` with 2 edge instances and 1 worker on fresh databases, a NATS namespace and a Redis prefix of its
 * own, and the demo tenant. `reach` gives the URL the processes use for a database (through a proxy, say).
 */
export async function startTestCluster(reach: (url: string) => string = (url) => url): Promise<TestCluster> {
  const storage = await isolatedStorage(["portal", "pos", "payments"]);
  const databaseUrls = storage.urls as Record<SubgraphName, string>;
  const dataDir = temporaryDirectory("pos-cloud-cluster-");
  const output: string[] = [];
  let failure: string | undefined;
  const dropStorage = async () => {
    await storage.drop();
    dataDir.remove();
  };
  const config = await localClusterConfig({
    dataDir: dataDir.path,
    databaseUrls: {
      portal: reach(databaseUrls.portal),
      pos: reach(databaseUrls.pos),
      payments: reach(databaseUrls.payments),
    },
  });
  const cluster = await startCluster(config, {
    output: (line) => output.push(line),
    onFailure: (reason) => {
      failure = reason;
    },
  }).catch(async (error: unknown) => {
    await dropStorage();
    throw error;
  });
  const paymentsDatabase = new pg.Client({ connectionString: databaseUrls.payments });
  await paymentsDatabase.connect();
  return {
    cluster,
    // Not platform.ts's readDemo: platform.ts imports this module.
    demo: JSON.parse(readFileSync(cluster.demoFile!, "utf8")) as DemoFile,
    payments: paymentsDatabase,
    output,
    failure: () => failure,
    async close() {
      await paymentsDatabase.end();
      await cluster.close();
      await dropStorage();
    },
  };
}
