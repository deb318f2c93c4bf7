// The sandbox SFTP server (a merchant's accounting server) as a process of its own (cluster mode): DATA_DIR, HOST,
// PORT. Its keys, account and files are under DATA_DIR/sandbox-sftp/.
import { resolve } from "node:path";
import { parseEnvironment, sandboxProcessSettings, stopOnSignals } from "@pos-cloud/common";
import { startEmbeddedSftp } from "./embedded";

const env = parseEnvironment(sandboxProcessSettings, process.env);
const sftp = await startEmbeddedSftp({
  dataDir: resolve(env.DATA_DIR),
  host: env.HOST,
  port: env.PORT === 0 ? undefined : env.PORT,
});
console.log(`sandbox SFTP server at ${sftp.baseUrl}`);
stopOnSignals("sandbox SFTP server", () => sftp.close());
