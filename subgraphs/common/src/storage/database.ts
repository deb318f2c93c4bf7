import { createHash } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { logger } from "../logger";
import { inTransaction } from "../transaction-scope";
import { openPglite } from "./pglite";
import type { Database, SqlRunner } from "./sql-runner";
import { tracedDatabase } from "./traced-database";

/**
 * A `postgresql://` URL opens PostgreSQL; no URL opens embedded PGlite, kept in `dataDir` (in memory without one),
 * made from the tarball `load` when given. Both speak Postgres, so each subgraph has one dialect and one set of
 * migrations.
 */
export async function openDatabase(options: { url?: string; dataDir?: string; load?: Uint8Array }): Promise<Database> {
  const db = tracedDatabase(
    options.url ? await openPostgres(options.url) : await openPglite(options.dataDir, options.load),
  );
  return { ...db, transaction: (work) => db.transaction((tx) => inTransaction("sql", () => work(tx))) };
}

/**
 * A Prisma client whose interactive transactions (`$transaction(async (tx) => ...)`) are marked as the database's
 * are, so a network call inside one is refused (`requireNoTransaction`).
 */
export function markTransactions<Client extends { $transaction: (...args: never[]) => unknown }>(
  client: Client,
): Client {
  return new Proxy(client, {
    get(target, key, receiver) {
      if (key !== "$transaction") return Reflect.get(target, key, receiver);
      return (work: unknown, ...rest: unknown[]) =>
        Reflect.apply(target.$transaction, target, [
          typeof work === "function" ? (tx: unknown) => inTransaction("prisma", () => work(tx)) : work,
          ...rest,
        ]);
    },
  });
}

/** A prepared statement's name on its connections: its text's digest, so one text is one statement. */
const statementName = (sql: string) => `s_${createHash("sha256").update(sql).digest("base64url").slice(0, 32)}`;

const CONNECT_TIMEOUT_MS = 5000;

async function openPostgres(url: string): Promise<Database> {
  // A connection that cannot be had within 5 s (the server unreachable, or every connection busy) fails the request
  // as service_unavailable instead of holding it past any client's timeout.
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // An idle connection the server closes (a restart, an administrator) is dropped by the pool and replaced on demand;
  // without a listener the pool's error event would end the process.
  pool.on("error", (error) => logger.warn("idle database connection closed by the server", { error: error.message }));
  const runner = (q: pg.Pool | pg.PoolClient): SqlRunner => ({
    exec: async (sql) => {
      await q.query(sql);
    },
    query: async <Row>(sql: string, params: unknown[] = []) => (await q.query(sql, params)).rows as Row[],
    prepared: async <Row>(sql: string, params: unknown[]) =>
      (await q.query({ name: statementName(sql), text: sql, values: params })).rows as Row[],
  });
  return {
    kind: "postgres",
    adapter: new PrismaPg(pool),
    ...runner(pool),
    transaction: async (work) => {
      const client = await pool.connect();
      // The server may end the session mid-transaction (a restart, an operator); the statement under way fails, and
      // without a listener the client's error event would end the process.
      const lost = (error: Error) => logger.warn("database connection lost in a transaction", { error: error.message });
      client.on("error", lost);
      let failure: Error | undefined;
      try {
        await client.query("BEGIN");
        const result = await work(runner(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch((rollback: Error) => {
          failure = rollback;
        });
        throw error;
      } finally {
        client.off("error", lost);
        // A client whose rollback failed is broken: the pool drops it rather than lending it again.
        client.release(failure);
      }
    },
    listen: (channel, onNotify) => listenOnPostgres(url, channel, onNotify),
    close: () => pool.end(),
  };
}

const RELISTEN_DELAY_MS = 1000;

/** LISTEN holds a connection for as long as it listens, so it gets one of its own rather than one of the pool's. */
async function listenOnPostgres(url: string, channel: string, onNotify: () => void): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const reopenLater = () => {
    if (stopped) return;
    retry = setTimeout(
      () =>
        open().catch((error: Error) => {
          logger.warn("database listener could not reconnect", { channel, error: error.message });
          reopenLater();
        }),
      RELISTEN_DELAY_MS,
    );
  };
  const open = async () => {
    const next = new pg.Client({ connectionString: url });
    next.on("notification", (message) => {
      if (message.channel === channel) onNotify();
    });
    next.on("error", (error) => {
      logger.warn("database listener connection lost; reopening", { channel, error: error.message });
      void next.end().catch(() => {});
      reopenLater();
    });
    client = next;
    await next.connect();
    await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
  };
  await open();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end();
  };
}
