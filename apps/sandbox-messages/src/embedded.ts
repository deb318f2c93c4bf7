import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type MailAccount, startMailServer } from "./mail-server";
import { mailbox } from "./mailbox";
import { smsRelayControl, startSmsRelay } from "./sms-relay";

/** The sandboxes' side of `DATA_DIR/sandbox-messages/`: the mail account, the relay's secret, their last ports. */
interface StoredConfig {
  account: MailAccount;
  sms_secret: string;
  smtp_port?: number;
  sms_port?: number;
}

/** Where the platform reaches the sandboxes, credentials included. */
export interface MessageSandboxSettings {
  /** `smtp://<user>:<password>@<host>:<port>` */
  smtpUrl: string;
  smsUrl: string;
  smsSecret: string;
}

export const messagesStateDir = (dataDir: string) => join(dataDir, "sandbox-messages");
const configPath = (dataDir: string) => join(messagesStateDir(dataDir), "config.json");

function loadOrCreateConfig(dataDir: string): StoredConfig {
  const path = configPath(dataDir);
  if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8")) as StoredConfig;
  mkdirSync(messagesStateDir(dataDir), { recursive: true });
  const config: StoredConfig = {
    account: { username: "pos-cloud", password: randomBytes(18).toString("base64url") },
    sms_secret: randomBytes(24).toString("base64url"),
  };
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return config;
}

function settingsOf(config: StoredConfig, host: string): MessageSandboxSettings | undefined {
  if (!config.smtp_port || !config.sms_port) return undefined;
  const user = encodeURIComponent(config.account.username);
  const password = encodeURIComponent(config.account.password);
  return {
    smtpUrl: `smtp://${user}:${password}@${host}:${config.smtp_port}`,
    smsUrl: `http://${host}:${config.sms_port}/messages`,
    smsSecret: config.sms_secret,
  };
}

/** What running sandboxes wrote under `dataDir`, for a cluster's other processes. */
export function readMessageSandboxSettings(dataDir: string): MessageSandboxSettings | undefined {
  return existsSync(configPath(dataDir)) ? settingsOf(loadOrCreateConfig(dataDir), "127.0.0.1") : undefined;
}

/** Every message the sandboxes received under `dataDir`: the development mailbox, `npm run mail`, tests. */
export const sandboxMailbox = (dataDir: string) => mailbox(messagesStateDir(dataDir));

/** The SMS relay's control under `dataDir` (fail or slow the next messages). */
export const embeddedSmsRelayControl = (dataDir: string) => smsRelayControl(messagesStateDir(dataDir));

/**
 * The sandbox mail server (SMTP) and SMS relay (HTTP) that `npm start` and `start:cluster` run, on loopback: the
 * account and secret are generated on first start and kept, what they receive stays under
 * `DATA_DIR/sandbox-messages/messages/`, and each listens on the port it had last time when still free (else one the
 * system picks) unless given one.
 */
export async function startMessageSandbox(options: {
  dataDir: string;
  host: string;
  ports?: { smtp?: number; sms?: number };
}): Promise<MessageSandboxSettings & { close(): Promise<void> }> {
  const config = loadOrCreateConfig(options.dataDir);
  const stateDir = messagesStateDir(options.dataDir);
  const box = mailbox(stateDir);
  const onPort = async <T>(given: number | undefined, last: number | undefined, start: (port: number) => Promise<T>) =>
    start(given ?? last ?? 0).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EADDRINUSE" || given !== undefined) throw error;
      return start(0);
    });
  const mail = await onPort(options.ports?.smtp, config.smtp_port, (port) =>
    startMailServer({ host: options.host, port, account: config.account, mailbox: box }),
  );
  const sms = await onPort(options.ports?.sms, config.sms_port, (port) =>
    startSmsRelay({ host: options.host, port, secret: config.sms_secret, stateDir, mailbox: box }),
  ).catch(async (error: unknown) => {
    await mail.close();
    throw error;
  });
  const running = { ...config, smtp_port: mail.port, sms_port: sms.port };
  writeFileSync(configPath(options.dataDir), `${JSON.stringify(running, null, 2)}\n`, { mode: 0o600 });
  const shownHost = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
  return {
    ...settingsOf(running, shownHost)!,
    close: async () => {
      await Promise.all([mail.close(), sms.close()]);
    },
  };
}
