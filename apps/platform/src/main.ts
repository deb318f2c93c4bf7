import { relative } from "node:path";
import { MasterKeyMismatchError, stopOnSignals, tuneGarbageCollection } from "@pos-cloud/common";
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
  } else if (error instanceof MasterKeyMismatchError) {
    console.error(`the platform could not start: ${error.message}`);
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
    `  QR sandbox    ${platform.sandboxUrl}  (customer pays: npm run provider -- pay <qr_content>)`,
    `  card acquirer ${platform.acquirerUrl ?? "ACQUIRER_FTP_URL"}  (settlement exchange daily at 02:00 Asia/Tokyo)`,
    `  data          ${relative(process.cwd(), config.dataDir) || "."}`,
    platform.demoFile ? `  demo tenant   ${relative(process.cwd(), platform.demoFile)}` : "  demo tenant   off",
    "Ctrl-C stops.",
  ].join("\n"),
);

stopOnSignals("platform", () => platform.close());
