import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { onPostgres, postgresUrl, temporaryDirectory } from "@pos-cloud/test-support/environment";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { requireNoTransaction } from "../transaction-scope";
import { markTransactions, openDatabase } from "./database";
import type { Database } from "./sql-runner";

describe.runIf(onPostgres)("a PostgreSQL database", () => {
  it("outlives the server closing its idle connections, and reconnects on the next query", async () => {
    const db = await openDatabase({ url: postgresUrl("portal") });
    const other = await openDatabase({ url: postgresUrl("portal") });
    try {
      const { pid } = (await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid"))[0]!;
      const terminated = await other.query<{ done: boolean }>("SELECT pg_terminate_backend($1) AS done", [pid]);
      expect(terminated).toEqual([{ done: true }]);
      // The pool hears of it from the closing socket; a query may reach the dead connection before that.
      const nextPid = await vi.waitFor(
        async () => (await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid"))[0]!.pid,
        { interval: 50, timeout: 1000 },
      );
      expect(nextPid).not.toBe(pid);
    } finally {
      await db.close();
      await other.close();
    }
  });

  it("prepares a statement once per connection and runs it with each call's values", async () => {
    const db = await openDatabase({ url: postgresUrl("portal") });
    const statement = "SELECT $1::int + 1 AS next";
    try {
      const prepared = await db.transaction(async (tx) => {
        expect(await tx.prepared(statement, [1])).toEqual([{ next: 2 }]);
        expect(await tx.prepared(statement, [41])).toEqual([{ next: 42 }]);
        return tx.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements");
      });
      expect(prepared).toEqual([{ statement }]);
    } finally {
      await db.close();
    }
  });
});

// PGlite's own behaviour: the same on either suite, so run once, by `npm test`. One in-memory database for the file:
// each new one is an initdb, seconds of CPU.
describe.skipIf(onPostgres)("PGlite in its own thread", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({});
  });
  afterAll(() => db.close());

  it("runs a prepared statement as a query", async () => {
    expect(await db.prepared("SELECT $1::int + 1 AS next", [41])).toEqual([{ next: 42 }]);
  });

  it("keeps the event loop serving while a statement runs", async () => {
    const order: string[] = [];
    const statement = db.query("SELECT pg_sleep(0.3)").then(() => order.push("statement"));
    await new Promise((resolve) => setTimeout(resolve, 10)).then(() => order.push("timer"));
    await statement;
    expect(order).toEqual(["timer", "statement"]);
  });

  it("commits a transaction's work, and rolls all of it back when the work fails", async () => {
    await db.exec("CREATE TABLE entries (v int PRIMARY KEY)");
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO entries VALUES ($1)", [1]);
      await tx.query("INSERT INTO entries VALUES ($1)", [2]);
    });
    const failed = db.transaction(async (tx) => {
      await tx.query("INSERT INTO entries VALUES ($1)", [3]);
      await tx.query("INSERT INTO entries VALUES ($1)", [1]);
    });
    // The database's own error, with its SQLSTATE, as on PostgreSQL.
    await expect(failed).rejects.toMatchObject({ code: "23505", constraint: "entries_pkey" });
    expect(await db.query("SELECT v FROM entries ORDER BY v")).toEqual([{ v: 1 }, { v: 2 }]);
  });

  it("tells a listener of each notification, and stops when asked", async () => {
    let heard = 0;
    let firstHeard!: () => void;
    const first = new Promise<void>((resolve) => {
      firstHeard = resolve;
    });
    const unlisten = await db.listen("changes", () => {
      heard++;
      firstHeard();
    });
    await db.exec("NOTIFY changes");
    await first;
    await unlisten();
    await db.exec("NOTIFY changes");
    // The thread answers in order: a notification of the second NOTIFY would have come before this answer.
    await db.query("SELECT 1");
    expect(heard).toBe(1);
  });

  it("starts a new WAL segment without writing it full of zeros first", async () => {
    const dir = temporaryDirectory();
    const onDisk = await openDatabase({ dataDir: dir.path });
    try {
      await onDisk.exec("CREATE TABLE written (v text)");
      await onDisk.query("SELECT pg_switch_wal()");
      await onDisk.exec("INSERT INTO written VALUES ('the first record of the next segment')");
      const wal = join(dir.path, "pg_wal");
      const segments = readdirSync(wal)
        .filter((name) => /^[0-9A-F]{24}$/.test(name))
        .sort()
        .map((name) => statSync(join(wal, name)));
      expect(segments.length).toBeGreaterThanOrEqual(2);
      const newest = segments.at(-1)!;
      expect(newest.size).toBe(16 * 1024 * 1024);
      // Full size, but only the blocks written so far are on disk.
      expect(newest.blocks * 512).toBeLessThan(1024 * 1024);
    } finally {
      await onDisk.close();
      dir.remove();
    }
  });

  it("refuses queries once closed", async () => {
    await db.close();
    await expect(db.query("SELECT 1")).rejects.toThrow("the database is closed");
  });
});

/** CONTRIBUTING.md, "No network call inside a database transaction": what the guard sees as a transaction. */
describe("a network call inside a transaction", () => {
  const call = async () => requireNoTransaction("a test's call");

  it("is refused inside the database's transactions and Prisma's, allowed around them", async () => {
    const db = await openDatabase(onPostgres ? { url: postgresUrl("portal") } : {});
    try {
      await expect(db.transaction(call)).rejects.toThrow(
        "a test's call: a network call inside a database transaction (sql)",
      );
      await expect(call()).resolves.toBeUndefined();
    } finally {
      await db.close();
    }
    const prisma = markTransactions({ $transaction: <T>(work: (tx: string) => Promise<T>) => work("tx") });
    await expect(prisma.$transaction(call)).rejects.toThrow("(prisma)");
  });
});
