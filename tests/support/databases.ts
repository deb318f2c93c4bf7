import { createHash, randomUUID } from "node:crypto";
import { cpSync, existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import { openSubgraphDatabase, pgliteVersion, readMigrations } from "@pos-cloud/common/storage";
import pg from "pg";
import {
  onPostgres,
  postgresUrl,
  type SubgraphName,
  scratchRoot,
  subgraphNames,
  temporaryDirectory,
} from "./environment";

const adminUrl = () => postgresUrl("portal")!.replace(/\/[^/]+$/, "/postgres");

async function asAdmin(statements: string[]) {
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    for (const statement of statements) await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/**
 * Storage no other test shares: in-memory PGlite, or in the cluster suite fresh PostgreSQL databases (one per
 * subgraph) dropped afterwards. For tests that need empty storage or move the clock.
 */
export async function isolatedStorage<S extends SubgraphName>(
  subgraphs: S[],
): Promise<{ urls: Partial<Record<S, string>>; drop(): Promise<void> }> {
  if (!onPostgres) return { urls: {}, drop: async () => {} };
  const suffix = randomUUID().replace(/-/g, "").slice(0, 12);
  const names = subgraphs.map((s) => [s, `pos_cloud_isolated_${suffix}_${s}`] as const);
  await asAdmin(names.map(([, name]) => `CREATE DATABASE ${name}`));
  return {
    urls: Object.fromEntries(names.map(([s, name]) => [s, postgresUrl(s)!.replace(/\/[^/]+$/, `/${name}`)])) as Partial<
      Record<S, string>
    >,
    drop: () => asAdmin(names.map(([, name]) => `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

let template: Promise<string> | undefined;

/**
 * Migrated, empty PGlite databases of every subgraph, made once for all test processes of this migration state (the
 * directory is named by PGlite's version and the migrations' checksums; a process that loses the race to create it
 * uses the winner's).
 */
function embeddedTemplate(): Promise<string> {
  template ??= (async () => {
    const checksums = subgraphNames.flatMap((subgraph) =>
      readMigrations(join(repositoryRoot, "prisma", subgraph, "migrations")).map((m) => m.checksum),
    );
    const name = createHash("sha256")
      .update([pgliteVersion(), ...checksums].join())
      .digest("hex")
      .slice(0, 16);
    const path = join(scratchRoot, `pos-cloud-pglite-template-${name}`);
    if (existsSync(path)) return path;
    const building = temporaryDirectory("pos-cloud-template-");
    for (const subgraph of subgraphNames) {
      await (await openSubgraphDatabase(subgraph, { dataDir: building.path })).close();
    }
    try {
      renameSync(building.path, path);
    } catch (error) {
      building.remove();
      if (!existsSync(path)) throw error;
    }
    return path;
  })();
  return template;
}

/**
 * Fills `dataDir` with migrated, empty PGlite databases of every subgraph: copying them takes a fraction of the
 * seconds that creating and migrating a PGlite database takes.
 */
export async function seedEmbeddedStorage(dataDir: string) {
  cpSync(await embeddedTemplate(), dataDir, { recursive: true });
}
