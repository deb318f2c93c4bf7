import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SqlRunner } from "./sql-runner";

export class MigrationError extends Error {
  constructor(
    readonly migration: string,
    cause: unknown,
  ) {
    super(`migration ${migration} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "MigrationError";
  }
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** The migrations of one subgraph, in Prisma's layout (`<dir>/<timestamp>_<name>/migration.sql`), oldest first. */
export function readMigrations(dir: string): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

// Prisma's own bookkeeping table, so that Prisma's tools read the same history.
const historyTable = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** Whether any of `migrations` is not in the database's history yet (a new database has none). */
export async function hasPendingMigrations(db: SqlRunner, migrations: Migration[]): Promise<boolean> {
  const [{ history }] = (await db.query<{ history: string | null }>(
    `SELECT to_regclass('"_prisma_migrations"')::text AS history`,
  )) as [{ history: string | null }];
  if (history === null) return migrations.length > 0;
  const applied = await db.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
  );
  const names = new Set(applied.map((row) => row.migration_name));
  return migrations.some((migration) => !names.has(migration.name));
}

/**
 * Applies every pending migration in one transaction: either all of them land or the database stays as it was.
 * An advisory lock makes instances that start together take turns. Returns the names applied.
 */
export async function applyMigrations(
  db: { transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> },
  migrations: Migration[],
): Promise<string[]> {
  let current = "(history)";
  try {
    return await db.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(727274)");
      await tx.exec(historyTable);
      const applied = await tx.query<{ migration_name: string; checksum: string }>(
        `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
      );
      const checksums = new Map(applied.map((row) => [row.migration_name, row.checksum]));
      const pending: string[] = [];
      for (const migration of migrations) {
        current = migration.name;
        const known = checksums.get(migration.name);
        if (known !== undefined) {
          if (known !== migration.checksum) throw new Error("its file was changed after it was applied");
          continue;
        }
        await tx.exec(migration.sql);
        await tx.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), 1)`,
          [randomUUID(), migration.checksum, migration.name],
        );
        pending.push(migration.name);
      }
      return pending;
    });
  } catch (error) {
    throw new MigrationError(current, error);
  }
}
