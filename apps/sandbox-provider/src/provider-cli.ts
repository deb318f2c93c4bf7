import { readSandboxSettings } from "./embedded";
import type { CliConfig } from "./environment";

const usage = "usage: npm run provider -- pay <provider_transaction_id | qr_content>";

/** What the customer scanned: the QR's content is the pay page `<sandbox>/pay/<transaction id>`; or the id itself. */
const scannedTransaction = (scanned: string) => /\/pay\/([^/?#]+)/.exec(scanned)?.[1] ?? scanned;

export interface CliOutput {
  out(line: string): void;
  error(line: string): void;
}

/** Plays the customer of the sandbox that `npm start` runs, found through DATA_DIR; returns the exit code. */
export async function runProviderCli(args: string[], config: CliConfig, output: CliOutput): Promise<number> {
  const [command, scanned] = args;
  if (command !== "pay" || !scanned || args.length !== 2) {
    output.error(usage);
    return 2;
  }
  const baseUrl = readSandboxSettings(config.dataDir)?.baseUrl;
  if (!baseUrl) {
    output.error(`no sandbox provider under ${config.dataDir}: start the platform first (npm start, same DATA_DIR)`);
    return 1;
  }
  const transactionId = scannedTransaction(scanned);
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/sandbox/transactions/${encodeURIComponent(transactionId)}/pay`, {
      method: "POST",
    });
  } catch {
    output.error(
      `the sandbox provider at ${baseUrl} does not answer: is npm start running with DATA_DIR=${config.dataDir}?`,
    );
    return 1;
  }
  const body = (await response.json()) as { status?: string; error?: { code: string; message: string } };
  if (!response.ok) {
    output.error(`not paid: ${body.error?.code ?? response.status}: ${body.error?.message ?? ""}`);
    return 1;
  }
  output.out(`${transactionId}: ${body.status}`);
  return 0;
}
