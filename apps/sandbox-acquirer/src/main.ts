// The sandbox card acquirer as a process of its own (cluster mode): DATA_DIR, HOST, PORT. Its account and files are
// under DATA_DIR/sandbox-acquirer/; the platform's processes read its URL there (or get ACQUIRER_FTP_URL).
import { resolve } from "node:path";
import { parseEnvironment, sandboxProcessSettings } from "@pos-cloud/common";
import { startEmbeddedAcquirer } from "./embedded";

const env = parseEnvironment(sandboxProcessSettings, process.env);
const acquirer = await startEmbeddedAcquirer({
  dataDir: resolve(env.DATA_DIR),
  host: env.HOST,
  port: env.PORT === 0 ? undefined : env.PORT,
});
console.log(`sandbox card acquirer at ${acquirer.baseUrl}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await acquirer.close();
    process.exit(0);
  });
}
