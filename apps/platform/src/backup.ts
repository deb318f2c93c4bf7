import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { type Database, keepOwnerOnly, openDatabase, restoreEmbeddedDatabase } from "@pos-cloud/common/storage";
import * as tar from "tar";
import { openBackup, sealBackup } from "./backup-file";

const subgraphs = ["portal", "pos", "payments"] as const;
type Databases = Record<(typeof subgraphs)[number], Database>;

/** What a restore needs beside the databases: the key their secrets are sealed with, the sandboxes' accounts. */
const besideTheDatabases = ["master.key", "demo.json", "sandbox-provider", "sandbox-acquirer"];

/** The running embedded platform answers backup requests on this socket of its data directory. */
const controlSocket = (dataDir: string) => join(resolve(dataDir), "platform.sock");

/**
 * A backup of the embedded platform: a tar archive holding each subgraph's database as PGlite dumps it (its files as
 * of a moment between two statements, so every committed transaction and nothing else) and the files beside them,
 * encrypted under the operator's passphrase (`backup-file.ts`): it holds the master key and the demo's credentials.
 */
async function writeBackup(dataDir: string, databases: Databases, file: string, passphrase: string) {
  const staging = mkdtempSync(join(tmpdir(), "pos-cloud-backup-"));
  try {
    for (const subgraph of subgraphs)
      writeFileSync(join(staging, `${subgraph}.tar.gz`), await databases[subgraph].dump!());
    for (const name of besideTheDatabases.filter((each) => existsSync(join(dataDir, each)))) {
      cpSync(join(dataDir, name), join(staging, name), { recursive: true });
    }
    await sealBackup(tar.create({ cwd: staging, portable: true }, readdirSync(staging)), resolve(file), passphrase);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Serves `npm run backup` while the platform runs: the databases are this process's, and only it may open them. */
export async function serveBackups(dataDir: string, databases: Databases): Promise<() => Promise<void>> {
  const path = controlSocket(dataDir);
  if (existsSync(path)) unlinkSync(path);
  const server = createServer((socket) => {
    createInterface({ input: socket }).once("line", (line) => {
      const { backup, passphrase } = JSON.parse(line) as { backup: string; passphrase: string };
      writeBackup(dataDir, databases, backup, passphrase).then(
        () => socket.end(`${JSON.stringify({ ok: true })}\n`),
        (error: Error) => socket.end(`${JSON.stringify({ error: error.message })}\n`),
      );
    });
  });
  await new Promise<void>((done) => server.listen(path, done));
  return () => new Promise<void>((done) => server.close(() => done()));
}

/** Asks the running platform for a backup; false when none answers on the data directory's socket. */
async function backupThroughPlatform(dataDir: string, file: string, passphrase: string): Promise<boolean> {
  const path = controlSocket(dataDir);
  if (!existsSync(path)) return false;
  const socket = createConnection(path);
  try {
    await new Promise<void>((connected, failed) => socket.once("connect", connected).once("error", failed));
  } catch {
    return false;
  }
  // The socket is in the owner-only data directory: only the platform's own user can connect and read the request.
  socket.write(`${JSON.stringify({ backup: resolve(file), passphrase })}\n`);
  const [line] = await createInterface({ input: socket })
    [Symbol.asyncIterator]()
    .next()
    .then((next) => [next.value]);
  const answer = JSON.parse(String(line)) as { ok?: true; error?: string };
  if (answer.error) throw new Error(answer.error);
  return true;
}

/** `npm run backup`: through the running platform, or from the data directory while none runs. */
export async function backup(dataDir: string, file: string, passphrase: string): Promise<"running" | "stopped"> {
  if (await backupThroughPlatform(dataDir, file, passphrase)) return "running";
  const missing = subgraphs.filter((subgraph) => !existsSync(join(dataDir, subgraph, "PG_VERSION")));
  if (missing.length > 0) throw new Error(`${dataDir} holds no embedded database of ${missing.join(", ")}`);
  const opened = await Promise.all(subgraphs.map((subgraph) => openDatabase({ dataDir: join(dataDir, subgraph) })));
  try {
    const databases = Object.fromEntries(subgraphs.map((s, i) => [s, opened[i]!])) as Databases;
    await writeBackup(dataDir, databases, file, passphrase);
  } finally {
    await Promise.all(opened.map((db) => db.close()));
  }
  return "stopped";
}

/** `npm run restore`: into a data directory without databases, with the platform stopped. */
export async function restore(dataDir: string, file: string, passphrase: string): Promise<void> {
  const present = subgraphs.filter((subgraph) => existsSync(join(dataDir, subgraph)));
  if (present.length > 0) {
    throw new Error(
      `${dataDir} already holds the ${present.join(", ")} database(s): restore into a new DATA_DIR, or move this one aside`,
    );
  }
  const staging = mkdtempSync(join(tmpdir(), "pos-cloud-restore-"));
  try {
    const archive = join(staging, "backup.tar");
    await openBackup(file, passphrase, archive);
    await tar.extract({ file: archive, cwd: staging });
    const absent = subgraphs.filter((subgraph) => !existsSync(join(staging, `${subgraph}.tar.gz`)));
    if (absent.length > 0) throw new Error(`${file} is not a backup of the platform: no ${absent.join(", ")} database`);
    for (const name of besideTheDatabases.filter((each) => existsSync(join(staging, each)))) {
      cpSync(join(staging, name), join(dataDir, name), { recursive: true });
    }
    for (const subgraph of subgraphs) {
      await restoreEmbeddedDatabase(subgraph, dataDir, readFileSync(join(staging, `${subgraph}.tar.gz`)));
    }
    // The files beside the databases keep the modes the backup's archive gave them; the databases are done already.
    keepOwnerOnly(dataDir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
