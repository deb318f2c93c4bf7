import { randomUUID } from "node:crypto";
import pg from "pg";
import { onPostgres, postgresUrl, type SubgraphName } from "./environment";

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
