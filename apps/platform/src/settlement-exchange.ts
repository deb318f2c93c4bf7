// npm run settlement-exchange -- --date YYYY-MM-DD [--store ID]
// Runs the daily card settlement exchange of one business day now, as the 02:00 schedule does, for every store with
// card activity or a settlement that day (or one store): the day is closed, its card transactions uploaded to the
// acquirer, its settlement file downloaded and reconciled. Stores already exchanged are exchanged again. One attempt
// each: a failed one is `retrying`, and the platform's `card-settlement-exchange-retries` job (a worker's, or the
// embedded platform's at its next start) makes the retries. The acquirer is ACQUIRER_FTP_URL, else the sandbox
// acquirer under DATA_DIR (started for the run). Embedded storage: stop the platform first (only one process may
// open it).
import { parseArgs } from "node:util";
import { openCardExchange } from "@pos-cloud/pos";
import { startEmbeddedAcquirer } from "@pos-cloud/sandbox-acquirer";
import { loadEnvironment } from "./environment";

const usage = "usage: npm run settlement-exchange -- --date YYYY-MM-DD [--store ID]";

function parse() {
  try {
    const { values } = parseArgs({ options: { date: { type: "string" }, store: { type: "string" } }, strict: true });
    if (!values.date || !/^\d{4}-\d{2}-\d{2}$/.test(values.date)) return undefined;
    if (values.store !== undefined && !/^[1-9]\d{0,9}$/.test(values.store)) return undefined;
    return { date: values.date, storeId: values.store === undefined ? undefined : Number(values.store) };
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
const sandbox = config.acquirerFtpUrl
  ? undefined
  : await startEmbeddedAcquirer({ dataDir: config.dataDir, host: config.host });
const exchange = await openCardExchange({
  url: config.databaseUrls.pos,
  dataDir: config.dataDir,
  acquirer: { url: config.acquirerFtpUrl ?? sandbox?.ftpUrl },
});
try {
  const outcomes = await exchange.cardExchange.run(args.date, { storeId: args.storeId, again: true });
  for (const outcome of outcomes) {
    const differences = (outcome.differences ?? []).map((d) => `${d.field} ${d.expected} vs ${d.actual}`).join(", ");
    console.log(
      `store ${outcome.store_id}  ${outcome.date}  ${outcome.status}  attempts ${outcome.attempts}  ${differences || outcome.error || ""}`,
    );
  }
  console.log(`${outcomes.length} store(s) exchanged for ${args.date}`);
  if (outcomes.some((outcome) => outcome.status !== "matched" && outcome.status !== "mismatch")) process.exitCode = 1;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await exchange.close();
  await sandbox?.close();
}
