import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The embedded platform keeps a generated master key beside its data; a configured one always wins. */
export function loadOrCreateMasterKey(dataDir: string, configured?: Buffer): Buffer {
  if (configured) return configured;
  const path = join(dataDir, "master.key");
  if (existsSync(path)) return Buffer.from(readFileSync(path, "utf8").trim(), "hex");
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString("hex")}\n`, { mode: 0o600 });
  return key;
}

/**
 * For a command that works on existing data (verify, restore): the configured key or the one beside the data, never a
 * new one, which would open nothing.
 */
export function readMasterKey(dataDir: string, configured?: Buffer): Buffer {
  if (configured) return configured;
  const path = join(dataDir, "master.key");
  if (!existsSync(path)) {
    throw new Error(`no master key: set MASTER_KEY, or keep the platform's key file at ${path}`);
  }
  return Buffer.from(readFileSync(path, "utf8").trim(), "hex");
}
