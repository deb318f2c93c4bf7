import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MerchantAccount } from "./auth";
import { type RunningSandbox, startSandbox } from "./sandbox";

/** The provider's side of the embedded sandbox, kept under `DATA_DIR/sandbox-provider/`. */
interface StoredConfig {
  /** Where the running sandbox listens; the `provider` CLI reads it. */
  base_url?: string;
  webhook_secret: string;
  /** Two accounts: one told of outcomes by notification (`sandbox`), one that must poll (`sandbox-poll`). */
  accounts: { webhook: MerchantAccount; polling: MerchantAccount };
}

export interface EmbeddedSandbox extends RunningSandbox {
  webhookSecret: string;
  accounts: StoredConfig["accounts"];
}

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

function newAccount(delivery: MerchantAccount["delivery"]): MerchantAccount {
  return { merchant_id: `sbx_m_${hex(4)}`, api_key: `sbx_key_${hex(16)}`, api_secret: hex(32), delivery };
}

const configPath = (dataDir: string) => join(dataDir, "sandbox-provider", "config.json");

function loadOrCreateConfig(dataDir: string): StoredConfig {
  const path = configPath(dataDir);
  if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8")) as StoredConfig;
  mkdirSync(join(dataDir, "sandbox-provider"), { recursive: true });
  const config: StoredConfig = {
    webhook_secret: hex(32),
    accounts: { webhook: newAccount("webhook"), polling: newAccount("polling") },
  };
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return config;
}

/** What a running sandbox wrote under `dataDir`, for the `provider` CLI and a cluster's other processes. */
export function readSandboxSettings(
  dataDir: string,
): (Pick<EmbeddedSandbox, "webhookSecret" | "accounts"> & { baseUrl?: string }) | undefined {
  const path = configPath(dataDir);
  if (!existsSync(path)) return undefined;
  const config = JSON.parse(readFileSync(path, "utf8")) as StoredConfig;
  return { baseUrl: config.base_url, webhookSecret: config.webhook_secret, accounts: config.accounts };
}

/**
 * The sandbox that `npm start` runs: credentials and webhook secret are generated on first start and kept, so the
 * gateway's stored credentials stay valid; it listens on its own port, the one it had last time when still free.
 */
export async function startEmbeddedSandbox(options: {
  dataDir: string;
  host: string;
  processingDelayMs: number;
  /** This port and no other (a cluster's other processes are told it); else the last one when free. */
  port?: number;
}): Promise<EmbeddedSandbox> {
  const config = loadOrCreateConfig(options.dataDir);
  const sandboxOptions = {
    host: options.host,
    webhookSecret: config.webhook_secret,
    accounts: [config.accounts.webhook, config.accounts.polling],
    processingDelayMs: options.processingDelayMs,
    dataFile: join(options.dataDir, "sandbox-provider", "transactions.json"),
  };
  const previousPort = config.base_url ? Number(new URL(config.base_url).port) : 0;
  const sandbox = await startSandbox({ ...sandboxOptions, port: options.port ?? previousPort }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== "EADDRINUSE" || options.port !== undefined) throw error;
      return startSandbox({ ...sandboxOptions, port: 0 });
    },
  );
  writeFileSync(configPath(options.dataDir), `${JSON.stringify({ ...config, base_url: sandbox.baseUrl }, null, 2)}\n`, {
    mode: 0o600,
  });
  return { ...sandbox, webhookSecret: config.webhook_secret, accounts: config.accounts };
}
