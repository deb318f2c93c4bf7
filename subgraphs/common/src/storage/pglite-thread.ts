// The worker thread that owns the process's embedded PGlite databases (see pglite.ts): it opens each database the
// main thread asks for, runs each request and posts back the result or the error.
import { parentPort } from "node:worker_threads";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { Transaction as AdapterTransaction, SqlDriverAdapter } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { PgliteReply, PgliteRequest } from "./pglite";

const port = parentPort!;

const create = (dataDir: string | undefined, load?: Uint8Array) =>
  PGlite.create(dataDir ?? "memory://", {
    loadDataDir: load && new Blob([load]),
    startParams: [
      ...PGlite.defaultStartParams,
      // Without fsync (PGlite's default) preallocating WAL segments buys nothing: each new 16 MB segment was first
      // written full of zeros, which stalled the database for 50-75 ms once per 16 MB of WAL.
      "-c",
      "wal_init_zero=off",
      // PostgreSQL's 128 MB default became resident in every database's WebAssembly memory; the files are in the
      // operating system's cache anyway (docs/decisions.md, "A light embedded platform").
      "-c",
      "shared_buffers=16MB",
    ],
  });

let nextId = 1;
const databases = new Map<number, Awaited<ReturnType<typeof host>>>();
const rolledBack = new Error("rolled back");

/**
 * Transactions held open until the main thread ends them: nothing else runs on the database meanwhile, as on one
 * connection. PGlite commits when the callback returns, and rolls back when it throws.
 */
function heldTransactions(db: PGlite) {
  const transactions = new Map<number, { tx: Transaction; end(commit: boolean): Promise<void> }>();
  return {
    begin(): Promise<number> {
      return new Promise((resolve, reject) => {
        const id = nextId++;
        let finish!: (commit: boolean) => void;
        const finished = new Promise<boolean>((done) => {
          finish = done;
        });
        const outcome = db.transaction(async (tx) => {
          transactions.set(id, {
            tx,
            async end(commit) {
              transactions.delete(id);
              finish(commit);
              await outcome.catch((error: unknown) => {
                if (error !== rolledBack) throw error;
              });
            },
          });
          resolve(id);
          if (!(await finished)) throw rolledBack;
        });
        outcome.catch(reject);
      });
    },
    end: (tx: number, commit: boolean) => transactions.get(tx)?.end(commit),
    /** Where a statement runs: in an open transaction, or on the database. */
    runner(tx: number | undefined) {
      if (tx === undefined) return db;
      const open = transactions.get(tx);
      if (!open) throw new Error(`transaction ${tx} is not open`);
      return open.tx;
    },
  };
}

type PrismaCall = Extract<
  PgliteRequest,
  {
    op: "queryRaw" | "executeRaw" | "executeScript" | "startTransaction" | "commit" | "rollback" | "shadow" | "dispose";
  }
>;

/** Prisma's connections (the database's and the shadow databases the schema engine asks for), by id. */
async function prismaConnections(prisma: PrismaPGlite) {
  const adapters = new Map<number, SqlDriverAdapter>([[0, await prisma.connect()]]);
  const adapterTransactions = new Map<number, AdapterTransaction>();
  const queryable = (request: { adapter?: number; tx?: number }) => {
    const target = request.tx !== undefined ? adapterTransactions.get(request.tx) : adapters.get(request.adapter ?? 0);
    if (!target) throw new Error("no such connection or transaction");
    return target;
  };
  async function handle(request: PrismaCall): Promise<unknown> {
    switch (request.op) {
      case "queryRaw":
        return queryable(request).queryRaw(request.query);
      case "executeRaw":
        return queryable(request).executeRaw(request.query);
      case "executeScript":
        return adapters.get(request.adapter)!.executeScript(request.script);
      case "startTransaction": {
        const tx = await adapters.get(request.adapter)!.startTransaction(request.isolationLevel);
        const id = nextId++;
        adapterTransactions.set(id, tx);
        return { tx: id, options: tx.options };
      }
      case "commit":
      case "rollback": {
        const tx = adapterTransactions.get(request.tx)!;
        adapterTransactions.delete(request.tx);
        return request.op === "commit" ? tx.commit() : tx.rollback();
      }
      case "shadow": {
        const id = nextId++;
        adapters.set(id, await prisma.connectToShadowDb());
        return id;
      }
      case "dispose":
        await adapters.get(request.adapter)?.dispose();
        if (request.adapter !== 0) adapters.delete(request.adapter);
        return undefined;
    }
  }
  return { handle, connectionInfo: adapters.get(0)!.getConnectionInfo!() };
}

/** One open database and what the main thread holds of it: transactions, listeners, Prisma's connections. */
async function host(dataDir: string | undefined, load?: Uint8Array) {
  const db = await create(dataDir, load);
  const prisma = new PrismaPGlite(db);
  const connections = await prismaConnections(prisma);
  const transactions = heldTransactions(db);
  const listeners = new Map<number, () => Promise<void>>();

  async function handle(request: PgliteRequest): Promise<unknown> {
    switch (request.op) {
      case "query":
        return (await transactions.runner(request.tx).query(request.sql, request.params)).rows;
      case "exec":
        await transactions.runner(request.tx).exec(request.sql);
        return undefined;
      case "begin":
        return transactions.begin();
      case "end":
        return transactions.end(request.tx, request.commit);
      case "listen": {
        const id = nextId++;
        const stop = await db.listen(request.channel, () => port.postMessage({ notify: id } satisfies PgliteReply));
        listeners.set(id, stop);
        return id;
      }
      case "unlisten":
        await listeners.get(request.listener)?.();
        listeners.delete(request.listener);
        return undefined;
      case "dump":
        // Outside any transaction and statement (PGlite's own transaction lock): what was committed, and nothing else.
        return db._runExclusiveTransaction(
          async () => new Uint8Array(await (await db.dumpDataDir("gzip")).arrayBuffer()),
        );
      case "close":
        await db.close();
        databases.delete(request.database);
        return undefined;
      case "open":
        throw new Error("already open");
      default:
        return connections.handle(request);
    }
  }
  return { handle, adapterName: prisma.adapterName, connectionInfo: connections.connectionInfo };
}

async function handle(request: PgliteRequest): Promise<unknown> {
  if (request.op === "open") {
    const opened = await host(request.dataDir, request.load);
    databases.set(request.database, opened);
    return { adapterName: opened.adapterName, connectionInfo: opened.connectionInfo };
  }
  const database = databases.get(request.database);
  if (!database) throw new Error("the database is closed");
  return database.handle(request);
}

/** An error as the main thread rebuilds it: its name, message and own fields (a database error's code, a cause). */
const transferable = (error: unknown) =>
  error instanceof Error
    ? { ...Object.fromEntries(Object.entries(error)), name: error.name, message: error.message, stack: error.stack }
    : { name: "Error", message: String(error) };

port.on("message", (request: PgliteRequest) => {
  handle(request).then(
    (result) => port.postMessage({ id: request.id, result } satisfies PgliteReply),
    (error: unknown) => {
      try {
        port.postMessage({ id: request.id, error: transferable(error) } satisfies PgliteReply);
      } catch {
        // A field the thread cannot copy (a function, say): the message still tells what failed.
        const { name, message } = transferable(error);
        port.postMessage({ id: request.id, error: { name, message } } satisfies PgliteReply);
      }
    },
  );
});
