// npm run accounting-export -- resend --store ID --date YYYY-MM-DD
// Sends a store's ended business day to its merchant's SFTP server again now, as the merchant set it up (format,
// server): the file is built again from the closed settlement and its five attempts start over; the first is made
// now and its outcome printed, the next ones are the platform's (every 30 minutes). Embedded storage: stop the
// platform first (only one process may open it); the sandbox SFTP server under DATA_DIR is started for the run.
import { parseArgs } from "node:util";
import { openPos, type PortalCall } from "@pos-cloud/pos";
import { startEmbeddedSftp } from "@pos-cloud/sandbox-sftp";
import { loadEnvironment } from "./environment";
import { readMasterKey } from "./master-key";

const usage = "usage: npm run accounting-export -- resend --store ID --date YYYY-MM-DD";

function parse() {
  try {
    const { values, positionals } = parseArgs({
      options: { date: { type: "string" }, store: { type: "string" } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.join(" ") !== "resend" || !values.date || !/^[1-9]\d{0,9}$/.test(values.store ?? "")) return;
    return { date: values.date, storeId: Number(values.store) };
  } catch {
    return undefined;
  }
}

const args = parse();
if (!args) {
  console.error(usage);
  process.exit(2);
}
const config = loadEnvironment();
const embedded = config.databaseUrls.pos === undefined;
const sandbox = embedded ? await startEmbeddedSftp({ dataDir: config.dataDir, host: "127.0.0.1" }) : undefined;
// The command acts as the system on its own rows: it asks the portal nothing.
const noPortal: PortalCall = async () => ({
  errors: [{ message: "the accounting export command asks the portal nothing" }],
});
const pos = await openPos({
  url: config.databaseUrls.pos,
  dataDir: config.dataDir,
  masterKey: readMasterKey(config.dataDir, config.masterKey),
  portal: noPortal,
});
try {
  const exports = pos.accountingExports;
  const delivery = await exports.sendAgain(await exports.storeWithSales(args.storeId, args.date), args.date);
  console.log(
    `${delivery.file_name}  ${delivery.status}  attempts ${delivery.attempts}  ${delivery.last_error ?? ""}`.trimEnd(),
  );
  if (delivery.status !== "delivered") process.exitCode = 1;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await pos.close();
  await sandbox?.close();
}
