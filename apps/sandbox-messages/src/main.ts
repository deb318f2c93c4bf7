// The sandbox mail server and SMS relay as a process of their own (cluster mode): DATA_DIR, HOST, SMTP_PORT,
// SMS_PORT. Their account, secret and what they receive are under DATA_DIR/sandbox-messages/; the platform's
// processes read their addresses there (or get SMTP_URL and SMS_RELAY_URL).
import { resolve } from "node:path";
import { parseEnvironment } from "@pos-cloud/common";
import { z } from "zod";
import { startMessageSandbox } from "./embedded";

const port = z.coerce.number().int().min(0).max(65535).default(0);
const env = parseEnvironment(
  z.object({
    DATA_DIR: z.string().min(1).default(".data"),
    HOST: z.string().min(1).default("127.0.0.1"),
    SMTP_PORT: port,
    SMS_PORT: port,
  }),
  process.env,
);
const sandbox = await startMessageSandbox({
  dataDir: resolve(env.DATA_DIR),
  host: env.HOST,
  ports: { smtp: env.SMTP_PORT || undefined, sms: env.SMS_PORT || undefined },
});
console.log(`sandbox mail server and SMS relay at ${new URL(sandbox.smtpUrl).host}, ${sandbox.smsUrl}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await sandbox.close();
    process.exit(0);
  });
}
