import { createHash, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo, Server } from "node:net";
import { join } from "node:path";
import { logger } from "@pos-cloud/common";
import { FtpSrv } from "ftp-srv";
import { AcquirerFiles } from "./acquirer-files";
import { SANDBOX_FEE_BASIS_POINTS } from "./settlement-file";

export interface AcquirerAccount {
  username: string;
  password: string;
}

export interface AcquirerOptions {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The acquirer's own state: `files/` (what merchants uploaded, its settlement files) and `control.json`. */
  stateDir: string;
  account: AcquirerAccount;
  /** Its fee on card sales, in hundredths of a percent (3.24% when absent). */
  feeBasisPoints?: number;
}

export interface RunningAcquirer {
  /** `ftp://<host>:<port>`, without credentials. */
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

/**
 * How to make the acquirer misbehave, for retry tests and rehearsals: the next `n` logins are refused (530) even with
 * the right password. Kept in `control.json` beside its files, so another process (a test, an operator) can set it.
 */
export function acquirerControl(stateDir: string) {
  const path = join(stateDir, "control.json");
  const read = (): { refuse_logins: number } =>
    existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : { refuse_logins: 0 };
  const write = (control: { refuse_logins: number }) => {
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(path, `${JSON.stringify(control)}\n`);
  };
  return {
    refuseNextLogins: (count: number) => write({ ...read(), refuse_logins: Math.max(0, Math.floor(count)) }),
    refusedLoginsLeft: () => read().refuse_logins,
    /** Takes one refusal if any is left. */
    takeRefusal() {
      const control = read();
      if (control.refuse_logins <= 0) return false;
      write({ ...control, refuse_logins: control.refuse_logins - 1 });
      return true;
    },
  };
}

const digest = (value: string) => createHash("sha256").update(value).digest();
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

/** ftp-srv's logger interface, quiet: the acquirer says what matters through the platform's logger. */
const quiet = {
  child: () => quiet,
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  fatal: () => {},
};

const exitSignals = ["SIGTERM", "SIGINT", "SIGQUIT"] as const;

/**
 * A card acquirer's FTP server (ftp-srv): merchants log in with the account's credentials, upload their day's card
 * transactions and download its settlement file. Passive transfers only (EPSV and PASV), on ports the system picks.
 */
export async function startAcquirer(options: AcquirerOptions): Promise<RunningAcquirer> {
  const host = options.host ?? "127.0.0.1";
  const filesRoot = join(options.stateDir, "files");
  mkdirSync(filesRoot, { recursive: true });
  const control = acquirerControl(options.stateDir);
  const before = new Map(exitSignals.map((signal) => [signal, process.listeners(signal)]));
  const server = new FtpSrv({ url: `ftp://${host}:${options.port ?? 0}`, pasv_url: host, log: quiet, timeout: 60_000 });
  // ftp-srv ends the whole process on these signals; the process that runs it decides that, in its own order.
  for (const signal of exitSignals) {
    for (const listener of process.listeners(signal))
      if (!before.get(signal)!.includes(listener)) process.removeListener(signal, listener);
  }
  // A free data port from the system for each passive transfer, never one ftp-srv guesses from a range.
  (server as unknown as { getNextPasvPort: () => Promise<number> }).getNextPasvPort = () => Promise.resolve(0);
  server.on("login", ({ connection, username, password }, resolve, reject) => {
    if (control.takeRefusal()) {
      logger.warn("sandbox acquirer: login refused by its control", { username });
      return reject(new Error("login refused: the acquirer is not taking logins now"));
    }
    if (!same(username, options.account.username) || !same(password, options.account.password))
      return reject(new Error("login incorrect"));
    resolve({
      fs: new AcquirerFiles(connection, filesRoot, options.feeBasisPoints ?? SANDBOX_FEE_BASIS_POINTS),
    });
  });
  // A data connection ends with an error whenever an upload is refused or a client goes away mid-transfer: routine.
  server.on("client-error", ({ context, error }) => {
    if (context !== "dataSocket")
      logger.warn("sandbox acquirer: a client's connection failed", { context, error: error.message });
  });
  await server.listen();
  const port = ((server as unknown as { server: Server }).server.address() as AddressInfo).port;
  const shownHost = host === "0.0.0.0" || host === "::" ? "localhost" : host;
  return {
    baseUrl: `ftp://${shownHost}:${port}`,
    port,
    close: async () => {
      await server.close();
    },
  };
}
