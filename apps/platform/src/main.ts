import { relative } from "node:path";
import { tuneGarbageCollection } from "@pos-cloud/common";
import { MigrationError } from "@pos-cloud/common/storage";
import { loadEnvironment } from "./environment";
import { startPlatform } from "./platform";

tuneGarbageCollection();
const config = loadEnvironment();
let platform: Awaited<ReturnType<typeof startPlatform>>;
try {
  platform = await startPlatform(config);
} catch (error) {
  if (error instanceof MigrationError) {
    console.error(
      `${error.message}\nThe database was left as it was before this start. Fix the migration and start again.`,
    );
  } else {
    console.error("the platform could not start:", error);
  }
  process.exit(1);
}

const base = platform.baseUrl;
console.log(
  [
    "POS cloud platform (embedded) is up",
    `  health        ${base}/health`,
    `  gateway API   ${base}/v1`,
    `  portal, POS   ${base}/api/v1`,
    `  GraphQL       ${base}/graphql  (WebSocket: ${base.replace(/^http/, "ws")}/graphql)`,
    `  QR sandbox    ${platform.sandboxUrl}  (customer pays: npm run provider -- pay <provider_transaction_id>)`,
    `  data          ${relative(process.cwd(), config.dataDir) || "."}`,
    platform.demoFile ? `  demo tenant   ${relative(process.cwd(), platform.demoFile)}` : "  demo tenant   off",
    "Ctrl-C stops.",
  ].join("\n"),
);

let stopping = false;
async function stop(signal: string) {
  // Ctrl-C under `npm start` reaches this process twice: from the terminal and forwarded by npm. The second must
  // not cut the clean stop short; a stop that hangs is ended by the timer below.
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  const forced = setTimeout(() => {
    console.error("did not stop within 15 seconds; exiting");
    process.exit(1);
  }, 15_000);
  forced.unref();
  await platform.close();
  console.log("stopped");
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
