// npm run start:cluster: the platform as separate processes on this machine (apps/platform/src/cluster.ts).
import { join, relative } from "node:path";
import { stopOnSignals } from "@pos-cloud/common";
import { MigrationError } from "@pos-cloud/common/storage";
import { startCluster } from "./cluster";
import { loadClusterEnvironment } from "./cluster-environment";

const config = loadClusterEnvironment();
let cluster: Awaited<ReturnType<typeof startCluster>>;
try {
  cluster = await startCluster(config, {
    onFailure: () => {
      process.exitCode = 1;
    },
  });
} catch (error) {
  console.error(
    error instanceof MigrationError
      ? `${error.message}\nThe database was left as it was before this start. Fix the migration and start again.`
      : `the cluster could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}

const base = cluster.baseUrl;
console.log(
  [
    `POS cloud platform (cluster: ${config.edgeInstances} edge processes, ${config.workers} workers) is up`,
    `  health        ${base}/health`,
    `  gateway API   ${base}/v1`,
    `  portal, POS   ${base}/api/v1`,
    `  GraphQL       ${base}/graphql  (WebSocket: ${base.replace(/^http/, "ws")}/graphql)`,
    `  QR sandbox    ${cluster.sandboxUrl}  (customer pays: npm run provider -- pay <provider_transaction_id>)`,
    `  SFTP sandbox  ${cluster.sftpUrl}  (accounting export daily at 00:00 Asia/Tokyo; its login: ${relative(process.cwd(), join(config.dataDir, "sandbox-sftp", "config.json"))})`,
    `  data          ${relative(process.cwd(), config.dataDir) || "."}  (databases on PostgreSQL)`,
    cluster.demoFile ? `  demo tenant   ${relative(process.cwd(), cluster.demoFile)}` : "  demo tenant   off",
    "Ctrl-C stops.",
  ].join("\n"),
);
stopOnSignals("cluster", () => cluster.close());
