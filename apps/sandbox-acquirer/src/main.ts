// The sandbox card acquirer as a process of its own (cluster mode): DATA_DIR, HOST, PORT. Its account and files are
// under DATA_DIR/sandbox-acquirer/; the platform's processes read its URL there (or get ACQUIRER_FTP_URL).
import { resolve } from "node:path";
import { parseEnvironment } from "@pos-cloud/common";
import { z } from "zod";
import { startEmbeddedAcquirer } from "./embedded";

const env = parseEnvironment(
  z.object({
    DATA_DIR: z.string().min(1).default(".data"),
    HOST: z.string().min(1).default("127.0.0.1"),
    /** 0 keeps the port of the last start when free. */
    PORT: z.coerce.number().int().min(0).max(65535).default(0),
  }),
  process.env,
);
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
