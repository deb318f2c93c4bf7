import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import {
  guardAgainstDescriptorExhaustion,
  MasterKeyMismatchError,
  startTracing,
  stopOnSignals,
  tuneGarbageCollection,
} from "@pos-cloud/common";
import { MigrationError } from "@pos-cloud/common/storage";
import type { DemoFile } from "./demo";
import { loadEnvironment } from "./environment";
import { startPlatform } from "./platform";

guardAgainstDescriptorExhaustion("platform");
tuneGarbageCollection();
const config = loadEnvironment();
// Before the platform opens anything, so its databases and bus are opened traced.
const tracing = config.otlpEndpoint
  ? await startTracing({ serviceName: "pos-cloud", endpoint: config.otlpEndpoint })
  : undefined;
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
/** Who to log in to the console as: the demo merchant admin, whose password and TOTP secret are in the demo file. */
const demoLogin = (demoFile: string) => {
  const demo = JSON.parse(readFileSync(demoFile, "utf8")) as DemoFile;
  const admin = demo.users.find((user) => user.role === "MERCHANT_ADMIN");
  return admin
    ? `  log in as     ${admin.login_id} (demo merchant admin; password and totp_secret in ${relative(process.cwd(), demoFile)})`
    : "";
};
console.log(
  [
    "POS cloud platform (embedded) is up",
    `  console       ${base}/console`,
    ...(platform.demoFile ? [demoLogin(platform.demoFile)] : []),
    `  API reference ${base}/docs`,
    `  health        ${base}/health`,
    `  operator      ${platform.adminUrl}/ready, /metrics  (ADMIN_PORT)`,
    `  gateway API   ${base}/v1`,
    `  portal, POS   ${base}/api/v1`,
    `  GraphQL       ${base}/graphql  (WebSocket: ${base.replace(/^http/, "ws")}/graphql)`,
    `  QR sandbox    ${platform.sandboxUrl}  (customer pays: npm run provider -- pay <qr_content>)`,
    `  card acquirer ${platform.acquirerUrl ?? "ACQUIRER_FTP_URL"}  (settlement exchange daily at 02:00 Asia/Tokyo)`,
    `  SFTP sandbox  ${platform.sftpUrl}  (accounting export daily at 00:00 Asia/Tokyo; its login: ${relative(process.cwd(), join(config.dataDir, "sandbox-sftp", "config.json"))})`,
    `  data          ${relative(process.cwd(), config.dataDir) || "."}`,
    platform.demoFile ? `  demo tenant   ${relative(process.cwd(), platform.demoFile)}` : "  demo tenant   off",
    "Ctrl-C stops.",
  ].join("\n"),
);

stopOnSignals("platform", async () => {
  await platform.close();
  await tracing?.shutdown();
});
