import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AcquirerAccount, acquirerControl, type RunningAcquirer, startAcquirer } from "./acquirer";

/** The acquirer's side of the embedded sandbox, kept under `DATA_DIR/sandbox-acquirer/`. */
interface StoredConfig {
  /** Where the running acquirer listens (`ftp://host:port`). */
  base_url?: string;
  account: AcquirerAccount;
}

export interface EmbeddedAcquirer extends RunningAcquirer {
  /** The URL a merchant connects with: `ftp://<user>:<password>@<host>:<port>/`. */
  ftpUrl: string;
  account: AcquirerAccount;
  stateDir: string;
}

export const acquirerStateDir = (dataDir: string) => join(dataDir, "sandbox-acquirer");
const configPath = (dataDir: string) => join(acquirerStateDir(dataDir), "config.json");

function loadOrCreateConfig(dataDir: string): StoredConfig {
  const path = configPath(dataDir);
  if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8")) as StoredConfig;
  mkdirSync(acquirerStateDir(dataDir), { recursive: true });
  const config: StoredConfig = { account: { username: "pos-cloud", password: randomBytes(18).toString("base64url") } };
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return config;
}

/** The merchant's URL of an acquirer at `baseUrl`, credentials included. */
export const acquirerFtpUrl = (baseUrl: string, account: AcquirerAccount) => {
  const url = new URL(baseUrl);
  url.username = account.username;
  url.password = account.password;
  return `${url.toString().replace(/\/$/, "")}/`;
};

/** What a running sandbox acquirer wrote under `dataDir`, for commands and a cluster's other processes. */
export function readAcquirerSettings(
  dataDir: string,
): { baseUrl?: string; ftpUrl?: string; account: AcquirerAccount } | undefined {
  const path = configPath(dataDir);
  if (!existsSync(path)) return undefined;
  const config = JSON.parse(readFileSync(path, "utf8")) as StoredConfig;
  return {
    baseUrl: config.base_url,
    ftpUrl: config.base_url ? acquirerFtpUrl(config.base_url, config.account) : undefined,
    account: config.account,
  };
}

/** The control of the sandbox acquirer kept under `dataDir` (refuse the next logins). */
export const embeddedAcquirerControl = (dataDir: string) => acquirerControl(acquirerStateDir(dataDir));

/**
 * The sandbox acquirer that `npm start` runs: its account is generated on first start and kept, its uploads and
 * settlement files stay under `DATA_DIR/sandbox-acquirer/files/`, and it listens on the port it had last time when
 * still free (else one the system picks), so the URL the platform uses stays the same across restarts.
 */
export async function startEmbeddedAcquirer(options: {
  dataDir: string;
  host: string;
  /** This port and no other (a cluster's other processes are told it); else the last one when free. */
  port?: number;
}): Promise<EmbeddedAcquirer> {
  const config = loadOrCreateConfig(options.dataDir);
  const stateDir = acquirerStateDir(options.dataDir);
  const start = (port: number) => startAcquirer({ host: options.host, port, stateDir, account: config.account });
  const previousPort = config.base_url ? Number(new URL(config.base_url).port) : 0;
  const acquirer = await start(options.port ?? previousPort).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EADDRINUSE" || options.port !== undefined) throw error;
    return start(0);
  });
  writeFileSync(
    configPath(options.dataDir),
    `${JSON.stringify({ ...config, base_url: acquirer.baseUrl }, null, 2)}\n`,
    {
      mode: 0o600,
    },
  );
  return { ...acquirer, ftpUrl: acquirerFtpUrl(acquirer.baseUrl, config.account), account: config.account, stateDir };
}
