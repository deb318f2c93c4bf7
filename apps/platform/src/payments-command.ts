import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Caller } from "@pos-cloud/common";
import { openPayments, type PaymentsDeps } from "@pos-cloud/payments";
import { loadEnvironment } from "./environment";
import { loadOrCreateMasterKey } from "./master-key";

/**
 * An operator command on the payments database (`npm run outbox`, `npm run webhooks`, `npm run partner`): checks its arguments, opens
 * the configured storage, runs, and closes it. With embedded storage (PGlite under DATA_DIR), stop the platform
 * first: only one process may open that storage at a time.
 */
export async function runPaymentsCommand(
  name: string,
  usage: string,
  argumentsOk: (command: string | undefined, target: string | undefined) => boolean,
  run: (payments: PaymentsDeps, operator: Caller, command: string, target: string | undefined) => Promise<void>,
) {
  const [command, target] = process.argv.slice(2);
  if (!argumentsOk(command, target)) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  const config = loadEnvironment();
  if (!config.masterKey && !existsSync(join(config.dataDir, "master.key"))) {
    console.error(`no master key: set MASTER_KEY or run from the platform's DATA_DIR (${config.dataDir})`);
    process.exit(1);
  }
  const payments = await openPayments({
    url: config.databaseUrls.payments,
    dataDir: config.dataDir,
    masterKey: loadOrCreateMasterKey(config.dataDir, config.masterKey),
    apiKeyLifetimeDays: config.apiKeyLifetimeDays,
  });
  try {
    await run(payments, { type: "service", id: `${name}-command`, scopes: [] }, command!, target);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  } finally {
    await payments.close();
  }
}
