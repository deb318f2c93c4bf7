import { postgresUrl } from "@pos-cloud/test-support/environment";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "./database";
import { applyMigrations, type Migration, MigrationError } from "./migrations";
import type { Database } from "./sql-runner";

const migration = (name: string, sql: string): Migration => ({ name, sql, checksum: `sum-${sql.length}-${name}` });

describe("applyMigrations", () => {
  let db: Database;
  // Each run works in its own schema so that runs against a shared PostgreSQL never see each other.
  const schema = `migrations_test_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;

  beforeAll(async () => {
    db = await openDatabase({ url: postgresUrl("portal") });
    await db.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
  });
  afterAll(async () => {
    await db.exec(`DROP SCHEMA ${schema} CASCADE`);
    await db.close();
  });

  const inSchema = {
    transaction: <T>(work: Parameters<Database["transaction"]>[0]) =>
      db.transaction(async (tx) => {
        await tx.exec(`SET LOCAL search_path TO ${schema}`);
        return work(tx) as Promise<T>;
      }),
  };

  it("applies pending migrations once, in order", async () => {
    const first = migration("001_widgets", "CREATE TABLE widgets (id int primary key);");
    const second = migration("002_widget_name", "ALTER TABLE widgets ADD COLUMN name text;");
    expect(await applyMigrations(inSchema, [first])).toEqual(["001_widgets"]);
    expect(await applyMigrations(inSchema, [first, second])).toEqual(["002_widget_name"]);
    expect(await applyMigrations(inSchema, [first, second])).toEqual([]);
    await db.exec(`INSERT INTO ${schema}.widgets (id, name) VALUES (1, 'a')`);
  });

  it("leaves the database as it was when a migration fails", async () => {
    const good = migration("003_gadgets", "CREATE TABLE gadgets (id int);");
    const bad = migration("004_broken", "ALTER TABLE no_such_table ADD COLUMN x int;");
    const known = [
      migration("001_widgets", "CREATE TABLE widgets (id int primary key);"),
      migration("002_widget_name", "ALTER TABLE widgets ADD COLUMN name text;"),
    ];
    const error = await applyMigrations(inSchema, [...known, good, bad]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).migration).toBe("004_broken");
    const tables = await db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'gadgets'",
      [schema],
    );
    expect(tables).toEqual([]);
  });

  it("refuses a migration whose file changed after it was applied", async () => {
    const edited = { ...migration("001_widgets", "CREATE TABLE widgets (id bigint primary key);"), checksum: "edited" };
    await expect(applyMigrations(inSchema, [edited])).rejects.toThrow(/changed after it was applied/);
  });
});
