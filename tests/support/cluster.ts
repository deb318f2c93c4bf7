import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import pg from "pg";
import { type RunningCluster, startCluster } from "../../apps/platform/src/cluster";
import type { ClusterConfig, SubgraphName } from "../../apps/platform/src/cluster-environment";
import type { DemoFile } from "../../apps/platform/src/demo";
import { isolatedStorage } from "./databases";
import { natsUrl, redisUrl, temporaryDirectory } from "./environment";

/**
 * A port nothing listens on now, for a process that must be told its port before it starts. It is drawn below
 * Linux's ephemeral range (32768 and up): a port the kernel handed out could meanwhile become the local end of any
 * outgoing connection (to PostgreSQL, NATS, Redis), and the process told to listen there would die of EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const listening = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (listening) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
}

/**
 * A cluster on this machine's engines: free ports, 2 edge instances and 1 worker, a NATS namespace and a Redis key
 * prefix of its own, the demo tenant, no sandbox delay. What a test or benchmark varies goes in `settings`.
 */
export async function localClusterConfig(
  settings: Pick<ClusterConfig, "dataDir" | "databaseUrls"> & Partial<ClusterConfig>,
): Promise<ClusterConfig> {
  const namespace = `test_${randomBytes(4).toString("hex")}`;
  const [port, admin, sandbox, portal, pos, payments] = await Promise.all(Array.from({ length: 6 }, () => freePort()));
  return {
    port: port!,
    host: "127.0.0.1",
    edgeInstances: 2,
    workers: 1,
    ports: { sandbox: sandbox!, portal: portal!, pos: pos!, payments: payments!, admin: admin! },
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
  }).catch(async (error: Error) => {
    await dropStorage();
    // What the processes said is the only account of why one ended: kept with the error, as a failing test's are.
    throw new Error(`${error.message}\n${output.slice(-100).join("\n")}`, { cause: error });
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
