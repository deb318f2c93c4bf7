// The worker thread that owns one embedded PGlite database (see pglite.ts): it runs each request the main thread
// sends and posts back the result or the error. Each subgraph's tables are in a Postgres schema of its own, and each
// request outside a transaction names its schema.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { Transaction as AdapterTransaction, SqlDriverAdapter } from "@prisma/driver-adapter-utils";
import { Mutex } from "async-mutex";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { PgliteReply, PgliteRequest, PgliteThreadOptions } from "./pglite";

const port = parentPort!;
const { dataDir, initialiseOnly } = workerData as PgliteThreadOptions;

const db = await PGlite.create(dataDir ?? "memory://", {
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
if (initialiseOnly) {
  // initdb's second WebAssembly instance stays referenced by the first: the thread ends and takes both with it.
  await db.close();
  process.exit(0);
}
const prisma = new PrismaPGlite(db);
/** Prisma's connections (the database's and the shadow databases the schema engine asks for), by id. */
const adapters = new Map<number, SqlDriverAdapter>([[0, await prisma.connect()]]);
const adapterTransactions = new Map<number, { tx: AdapterTransaction; release(): void }>();
const transactions = new Map<number, { tx: Transaction; end(commit: boolean): Promise<void> }>();
const listeners = new Map<number, () => Promise<void>>();
let nextId = 1;

const rolledBack = new Error("rolled back");

/**
 * PGlite's one connection, as the requests of every schema share it: a statement outside a transaction waits for the
 * open one (PGlite would make it wait too) and then runs with its own schema's search_path; a transaction holds it
 * until it ends, so its statements need no schema of their own.
 */
const connection = new Mutex();
let searchPath = "public";
const created = new Set(["public"]);

async function use(schema: string) {
  if (schema === searchPath) return;
  const name = `"${schema.replaceAll('"', '""')}"`;
  if (!created.has(schema)) await db.exec(`CREATE SCHEMA IF NOT EXISTS ${name}`);
  created.add(schema);
  await db.exec(`SET search_path TO ${name}`);
  searchPath = schema;
}

const alone = <T>(schema: string, work: () => Promise<T>) =>
  connection.runExclusive(async () => {
    await use(schema);
    return work();
  });

/** Takes the connection for a transaction in `schema`; the returned release gives it back. */
async function hold(schema: string): Promise<() => void> {
  const release = await connection.acquire();
  try {
    await use(schema);
  } catch (error) {
    release();
    throw error;
  }
  return release;
}

/**
 * A transaction held open until the main thread ends it: nothing else runs on the database meanwhile, as on one
 * connection. PGlite commits when the callback returns, and rolls back when it throws.
 */
async function begin(schema: string): Promise<number> {
  const release = await hold(schema);
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
    outcome.catch(reject).finally(release);
  });
}

const runner = (tx: number | undefined) => {
  if (tx === undefined) return db;
  const open = transactions.get(tx);
  if (!open) throw new Error(`transaction ${tx} is not open`);
  return open.tx;
};

const queryable = (request: { adapter?: number; tx?: number }) => {
  const target =
    request.tx !== undefined ? adapterTransactions.get(request.tx)?.tx : adapters.get(request.adapter ?? 0);
  if (!target) throw new Error("no such connection or transaction");
  return target;
};

async function handle(request: PgliteRequest): Promise<unknown> {
  switch (request.op) {
    case "query":
      if (request.tx !== undefined) return (await runner(request.tx).query(request.sql, request.params)).rows;
      return alone(request.schema, async () => (await db.query(request.sql, request.params)).rows);
    case "exec":
      if (request.tx !== undefined) await runner(request.tx).exec(request.sql);
      else await alone(request.schema, () => db.exec(request.sql));
      return undefined;
    case "begin":
      return begin(request.schema);
    case "end":
      return transactions.get(request.tx)?.end(request.commit);
    case "listen": {
      const id = nextId++;
      listeners.set(id, await db.listen(request.channel, () => port.postMessage({ notify: id } satisfies PgliteReply)));
      return id;
    }
    case "unlisten":
      await listeners.get(request.listener)?.();
      listeners.delete(request.listener);
      return undefined;
    case "queryRaw":
    case "executeRaw": {
      const target = queryable(request);
      const run = (): Promise<unknown> =>
        request.op === "queryRaw" ? target.queryRaw(request.query) : target.executeRaw(request.query);
      return request.tx !== undefined ? run() : alone(request.schema, run);
    }
    case "executeScript":
      return alone(request.schema, () => adapters.get(request.adapter)!.executeScript(request.script));
    case "startTransaction": {
      const release = await hold(request.schema);
      try {
        const tx = await adapters.get(request.adapter)!.startTransaction(request.isolationLevel);
        const id = nextId++;
        adapterTransactions.set(id, { tx, release });
        return { tx: id, options: tx.options };
      } catch (error) {
        release();
        throw error;
      }
    }
    case "commit":
    case "rollback": {
      const { tx, release } = adapterTransactions.get(request.tx)!;
      adapterTransactions.delete(request.tx);
      try {
        return await (request.op === "commit" ? tx.commit() : tx.rollback());
      } finally {
        release();
      }
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
    case "close":
      await connection.runExclusive(() => db.close());
      return undefined;
  }
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
port.postMessage({
  ready: true,
  adapterName: prisma.adapterName,
  connectionInfo: adapters.get(0)!.getConnectionInfo!(),
} satisfies PgliteReply);
