import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { logger } from "../logger";
import { repositoryRoot } from "../repository-root";
import { openDatabase } from "./database";
import { keepOwnerOnly, makeOwnerOnly } from "./file-modes";
import { applyMigrations, hasPendingMigrations, type Migration, MigrationError, readMigrations } from "./migrations";
import { openPglite } from "./pglite";
import type { Database } from "./sql-runner";

export interface StorageOptions {
  /** `postgresql://...`; when absent the subgraph keeps its data in embedded PGlite. */
  url?: string;
  /** Where embedded PGlite keeps its files (`<dataDir>/<subgraph>`); in memory when absent. */
  dataDir?: string;
}

async function openMigrated(subgraph: string, storage: Parameters<typeof openDatabase>[0]): Promise<Database> {
  const db = await openDatabase(storage);
  try {
    const migrations = readMigrations(join(repositoryRoot, "prisma", subgraph, "migrations"));
    const applied = await applyMigrations(db, migrations);
    if (applied.length > 0) logger.info("migrations applied", { subgraph, applied });
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/** Applies a subgraph's pending migrations to its embedded database in `dataDir`, closed afterwards. */
export async function migrateEmbeddedDatabase(subgraph: string, dataDir: string): Promise<void> {
  await (await openMigrated(subgraph, { dataDir: join(dataDir, subgraph) })).close();
}

/** Runs PGlite's initdb into `dir`: an empty database cluster, closed afterwards. */
export async function initEmbeddedCluster(dir: string): Promise<void> {
  await (await openPglite(dir)).close();
}

const migrationProcess = new URL(
  import.meta.url.endsWith(".ts") ? "./migrate-embedded.ts" : "./migrate-embedded.js",
  import.meta.url,
);

/**
 * initdb or the migrations of an embedded database in a process of its own (migrate-embedded.ts). initdb and DDL grew
 * the memory of the thread that ran them by about 130 MB a database, which neither PGlite's WebAssembly memory nor the C library's allocator gives
 * back, not even when the thread ends; a process returns it all when it exits.
 */
async function inChildProcess(args: string[]): Promise<void> {
  const source = migrationProcess.pathname.endsWith(".ts");
  const child = spawn(
    process.execPath,
    [...(source ? ["--import", "tsx"] : ["--conditions=compiled"]), fileURLToPath(migrationProcess), ...args],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  // Its log lines go out through this process's stdout, where whatever holds this process's lines holds them too.
  child.stdout.on("data", (chunk: Buffer) => process.stdout.write(chunk));
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => {
    errors += chunk;
  });
  const [code] = (await once(child, "exit")) as [number | null];
  if (code === 0) return;
  const failure = errors.trim().split("\n").at(-1) ?? "";
  const migration = /^migration (\S+) failed: (.*)$/.exec(failure);
  throw migration
    ? new MigrationError(migration[1]!, new Error(migration[2]))
    : new Error(`${args.join(" ")} failed: ${errors.trim() || `exit code ${code}`}`);
}

/** The installed PGlite's version: its databases' format. */
export const pgliteVersion = (): string =>
  JSON.parse(readFileSync(join(repositoryRoot, "node_modules", "@electric-sql", "pglite", "package.json"), "utf8"))
    .version;

/** What an installation makes once and keeps: like any package cache, under node_modules. */
const cacheDirectory = join(repositoryRoot, "node_modules", ".cache", "pos-cloud");

let emptyCluster: Promise<string> | undefined;

/**
 * A database cluster directory kept at `path`, made by `build` when it is missing (`complete` is a file only a
 * finished one has). It is built beside its place and renamed into it, so a reader never sees half of one; a process
 * that loses the race to put it there uses the winner's.
 */
async function cachedCluster(path: string, complete: string, build: (into: string) => Promise<void>): Promise<string> {
  if (existsSync(join(path, complete))) return path;
  const building = `${path}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  await build(building);
  // Copies keep their modes: the template is owner-only, so every database made from it is from its first file.
  keepOwnerOnly(building);
  try {
    renameSync(building, path);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(path, complete))) throw error;
  }
  return path;
}

/**
 * An empty embedded database cluster made by PGlite's initdb, once per installed PGlite version, as a PostgreSQL
 * package runs initdb when it is installed (`npm ci` makes it). initdb was about three seconds of CPU for each new
 * database, most of a cold start; a copy of its result takes a fraction of a second. The migrated templates
 * (`migratedTemplate`) start as copies of it.
 */
export function embeddedClusterTemplate(): Promise<string> {
  emptyCluster ??= cachedCluster(join(cacheDirectory, `pglite-${pgliteVersion()}`), "PG_VERSION", (into) =>
    inChildProcess(["initdb", into]),
  );
  return emptyCluster;
}

/** PGlite's version and the migrations' checksums: what a migrated template was made of. */
const migrationState = (migrations: Migration[]) =>
  createHash("sha256")
    .update([pgliteVersion(), ...migrations.map((migration) => migration.checksum)].join())
    .digest("hex")
    .slice(0, 16);

/**
 * A migrated, empty database of `subgraph` as a tarball (`Database.dump`), made once per PGlite version and migration
 * state. A database in memory (the tests', a tool's) is loaded from it instead of running initdb and every migration:
 * about 2 s instead of 15 on a busy two-core machine.
 */
async function memoryTemplate(subgraph: string, migrations: Migration[]): Promise<Uint8Array> {
  const path = join(cacheDirectory, `${subgraph}-${migrationState(migrations)}.tar.gz`);
  if (existsSync(path)) return readFileSync(path);
  const db = await openMigrated(subgraph, {});
  try {
    const tarball = await db.dump!();
    mkdirSync(cacheDirectory, { recursive: true });
    writeFileSync(`${path}.${process.pid}`, tarball);
    renameSync(`${path}.${process.pid}`, path);
    return tarball;
  } finally {
    await db.close();
  }
}

const migratedClusters: Record<string, Promise<string>> = {};

/**
 * A migrated, empty database of `subgraph` on disk, `<path>/<subgraph>`, made once per PGlite version and migration
 * state as the empty cluster is: a new data directory's database is a copy of it, so a first start copies its
 * databases instead of migrating each in a process of its own (most of a first start's 20 s on a busy machine).
 */
function migratedTemplate(subgraph: string, migrations: Migration[]): Promise<string> {
  const path = join(cacheDirectory, `${subgraph}-${migrationState(migrations)}`);
  migratedClusters[subgraph] ??= cachedCluster(path, join(subgraph, "PG_VERSION"), async (into) => {
    cpSync(await embeddedClusterTemplate(), join(into, subgraph), { recursive: true });
    await inChildProcess(["migrate", subgraph, into]);
  });
  return migratedClusters[subgraph];
}

/** A new embedded database of `subgraph` in `dir`, migrated: a copy of its template, complete or not there at all. */
async function createEmbeddedDatabase(subgraph: string, dir: string, migrations: Migration[]): Promise<void> {
  const building = `${dir}.new`;
  rmSync(building, { recursive: true, force: true });
  cpSync(join(await migratedTemplate(subgraph, migrations), subgraph), building, { recursive: true });
  // A template made before templates were owner-only (an installation's cache) passes its 0666 files to the copy.
  makeOwnerOnly(building);
  renameSync(building, dir);
  logger.info("database created", { subgraph, migration: migrations.at(-1)?.name });
}

/**
 * Opens a subgraph's own database and brings it to its newest migration before anything else touches it. An
 * embedded database with migrations pending (a new one: all of them) is migrated by a process of its own first.
 */
export async function openSubgraphDatabase(subgraph: string, options: StorageOptions): Promise<Database> {
  const { url } = options;
  if (url) return openMigrated(subgraph, { url });
  const migrations = readMigrations(join(repositoryRoot, "prisma", subgraph, "migrations"));
  // In memory, which would not outlive another process: from the migrated template, in this process.
  if (!options.dataDir) return openMigrated(subgraph, { load: await memoryTemplate(subgraph, migrations) });
  const dataDir = join(options.dataDir, subgraph);
  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    await createEmbeddedDatabase(subgraph, dataDir, migrations);
    return openDatabase({ dataDir });
  }
  const db = await openDatabase({ dataDir });
  if (!(await hasPendingMigrations(db, migrations))) return db;
  await db.close();
  await inChildProcess(["migrate", subgraph, options.dataDir]);
  return openDatabase({ dataDir });
}

/**
 * An embedded database made from a backup's tarball (`Database.dump`) in `<dataDir>/<subgraph>`, which must not
 * exist yet; it is opened as `openSubgraphDatabase` opens it (newer migrations applied).
 */
export async function restoreEmbeddedDatabase(subgraph: string, dataDir: string, tarball: Uint8Array) {
  await (await openPglite(join(dataDir, subgraph), tarball)).close();
  await (await openSubgraphDatabase(subgraph, { dataDir })).close();
}
