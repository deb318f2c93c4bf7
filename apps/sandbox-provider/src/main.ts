// The sandbox QR provider as a process of its own (cluster mode): DATA_DIR, HOST, PORT, SANDBOX_PROCESSING_DELAY_MS.
import { resolve } from "node:path";
import { parseEnvironment } from "@pos-cloud/common";
import { z } from "zod";
import { startEmbeddedSandbox } from "./embedded";

const env = parseEnvironment(
  z.object({
    DATA_DIR: z.string().min(1).default(".data"),
    HOST: z.string().min(1).default("127.0.0.1"),
    /** 0 keeps the port of the last start when free. */
    PORT: z.coerce.number().int().min(0).max(65535).default(0),
    SANDBOX_PROCESSING_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
  }),
  process.env,
);
const sandbox = await startEmbeddedSandbox({
  dataDir: resolve(env.DATA_DIR),
  host: env.HOST,
  port: env.PORT === 0 ? undefined : env.PORT,
  processingDelayMs: env.SANDBOX_PROCESSING_DELAY_MS,
});
console.log(`sandbox QR provider at ${sandbox.baseUrl}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await sandbox.close();
    process.exit(0);
  });
}
