import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ssh2 from "ssh2";
import { type RunningSftp, type SftpAccount, sftpControl, startSftpServer } from "./sftp-server";

/** The sandbox's keys and account, kept under `DATA_DIR/sandbox-sftp/`. */
interface StoredConfig {
  /** Where it listened last (`sftp://host:port`). */
  base_url?: string;
  host_key: string;
  account: SftpAccount;
  /** The private half of the account's key, for a merchant's settings. */
  client_private_key: string;
}

export interface EmbeddedSftp extends RunningSftp {
  /** `sftp://host:port`. */
  baseUrl: string;
  account: SftpAccount;
  clientPrivateKey: string;
  stateDir: string;
}

export const sftpStateDir = (dataDir: string) => join(dataDir, "sandbox-sftp");
const configPath = (dataDir: string) => join(sftpStateDir(dataDir), "config.json");

/**
 * A new key pair, OpenSSH format. ECDSA P-256, not Ed25519: about 1 in 270 of the Ed25519 keys ssh2 1.17 generates
 * is refused by its own parser ("Malformed OpenSSH private key"), which failed a platform's start now and then.
 */
export const newSshKeyPair = () => ssh2.utils.generateKeyPairSync("ecdsa", { bits: 256 });

function loadOrCreateConfig(dataDir: string): StoredConfig {
  const path = configPath(dataDir);
  if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8")) as StoredConfig;
  mkdirSync(sftpStateDir(dataDir), { recursive: true });
  const client = newSshKeyPair();
  const config: StoredConfig = {
    host_key: newSshKeyPair().private,
    account: { username: "accounting", password: randomBytes(18).toString("base64url"), publicKey: client.public },
    client_private_key: client.private,
  };
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return config;
}

/** Where a running sandbox SFTP server under `dataDir` listens, for a cluster's banner. */
export function readSftpBaseUrl(dataDir: string): string | undefined {
  const path = configPath(dataDir);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as StoredConfig).base_url : undefined;
}

/** The control of the sandbox kept under `dataDir` (refuse the next uploads, the files received). */
export const embeddedSftpControl = (dataDir: string) => sftpControl(sftpStateDir(dataDir));

/**
 * The sandbox SFTP server that `npm start` runs: its host key and account (a password and a key pair) are made on
 * first start and kept, its files stay under `DATA_DIR/sandbox-sftp/files/`, and it listens on the port it had last
 * time when still free (else one the system picks).
 */
export async function startEmbeddedSftp(options: {
  dataDir: string;
  host: string;
  port?: number;
}): Promise<EmbeddedSftp> {
  const config = loadOrCreateConfig(options.dataDir);
  const stateDir = sftpStateDir(options.dataDir);
  const start = (port: number) =>
    startSftpServer({ host: options.host, port, stateDir, hostKey: config.host_key, account: config.account });
  const previousPort = config.base_url ? Number(new URL(config.base_url).port) : 0;
  const server = await start(options.port ?? previousPort).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EADDRINUSE" || options.port !== undefined) throw error;
    return start(0);
  });
  const baseUrl = `sftp://${server.host}:${server.port}`;
  writeFileSync(configPath(options.dataDir), `${JSON.stringify({ ...config, base_url: baseUrl }, null, 2)}\n`, {
    mode: 0o600,
  });
  return { ...server, baseUrl, account: config.account, clientPrivateKey: config.client_private_key, stateDir };
}
