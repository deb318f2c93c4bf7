import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type {
  ConnectionInfo,
  IsolationLevel,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
  Transaction,
  TransactionOptions,
} from "@prisma/driver-adapter-utils";
import { logger } from "../logger";
import type { Database, SqlRunner } from "./sql-runner";

export interface PgliteThreadOptions {
  dataDir?: string;
  /** Create the database (initdb) and end. */
  initialiseOnly?: boolean;
}

/** What the main thread asks of the database's thread (pglite-thread.ts); `schema` is the subgraph's. */
export type PgliteCall =
  | { op: "query"; schema: string; sql: string; params: unknown[]; tx?: number }
  | { op: "exec"; schema: string; sql: string; tx?: number }
  | { op: "begin"; schema: string }
  | { op: "end"; tx: number; commit: boolean }
  | { op: "listen"; channel: string }
  | { op: "unlisten"; listener: number }
  | { op: "queryRaw" | "executeRaw"; schema: string; query: SqlQuery; adapter?: number; tx?: number }
  | { op: "executeScript"; schema: string; adapter: number; script: string }
  | { op: "startTransaction"; schema: string; adapter: number; isolationLevel?: IsolationLevel }
  | { op: "commit" | "rollback"; tx: number }
  | { op: "shadow" }
  | { op: "dispose"; adapter: number }
  | { op: "close" };
export type PgliteRequest = PgliteCall & { id: number };

export type TransferredError = { name: string; message: string } & Record<string, unknown>;
export type PgliteReply =
  | { ready: true; adapterName: string; connectionInfo: ConnectionInfo }
  | { notify: number }
  | { id: number; result?: unknown; error?: TransferredError };

const threadFile = new URL(
  import.meta.url.endsWith(".ts") ? "./pglite-thread.ts" : "./pglite-thread.js",
  import.meta.url,
);

function startThread(options: PgliteThreadOptions): Worker {
  // Not the process's own options: a script given with `--eval` or a test runner's hooks are not the thread's.
  const settings = { workerData: options, execArgv: [] };
  if (threadFile.pathname.endsWith(".js")) return new Worker(threadFile, settings);
  // Run from sources (`npm start`, tests), the thread needs tsx to load TypeScript, registered before its first import.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api")).href;
  const file = JSON.stringify(threadFile.href);
  return new Worker(`import(${JSON.stringify(tsx)}).then(({ tsImport }) => tsImport(${file}, ${file}))`, {
    ...settings,
    eval: true,
  });
}

/**
 * initdb in a thread that ends when the database exists: PGlite runs it in a second WebAssembly instance that stayed
 * resident beside the database's (about 450 MB after a cold start).
 */
async function initialise(dataDir: string) {
  mkdirSync(dataDir, { recursive: true });
  const thread = startThread({ dataDir, initialiseOnly: true });
  await new Promise<void>((resolve, reject) => {
    thread.once("error", reject);
    thread.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`creating the database in ${dataDir} ended with code ${code}`)),
    );
  });
}

interface Thread {
  call<T>(request: PgliteCall): Promise<T>;
  adapterName: string;
  connectionInfo: ConnectionInfo;
  notified: Map<number, () => void>;
  close(): Promise<void>;
}

async function openThread(dataDir: string | undefined): Promise<Thread> {
  if (dataDir && !existsSync(join(dataDir, "PG_VERSION"))) await initialise(dataDir);
  const worker = startThread({ dataDir });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const notified = new Map<number, () => void>();
  let nextId = 1;
  let failure: Error | undefined;
  let started!: (reply: Extract<PgliteReply, { ready: true }>) => void;
  let startFailed!: (error: Error) => void;
  const ready = new Promise<Extract<PgliteReply, { ready: true }>>((resolve, reject) => {
    started = resolve;
    startFailed = reject;
  });
  const fail = (error: Error) => {
    if (!failure) logger.error("the embedded database's thread stopped", { data_dir: dataDir, error: error.message });
    failure ??= error;
    startFailed(failure);
    for (const call of pending.values()) call.reject(failure);
    pending.clear();
  };
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the PGlite thread exited with code ${code}`)));
  worker.on("message", (reply: PgliteReply) => {
    if ("ready" in reply) return started(reply);
    if ("notify" in reply) return notified.get(reply.notify)?.();
    const call = pending.get(reply.id);
    pending.delete(reply.id);
    // The thread keeps the process alive only while it owes an answer, as an open socket would.
    if (pending.size === 0) worker.unref();
    if (reply.error) call?.reject(Object.assign(new Error(reply.error.message), reply.error));
    else call?.resolve(reply.result);
  });
  const call = <T>(request: PgliteCall): Promise<T> => {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    worker.ref();
    worker.postMessage({ ...request, id } satisfies PgliteRequest);
    return new Promise<T>((resolve, reject) =>
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject }),
    );
  };
  const { adapterName, connectionInfo } = await ready;
  worker.unref();
  return {
    call,
    adapterName,
    connectionInfo,
    notified,
    async close() {
      if (!failure) {
        await call({ op: "close" });
        failure = new Error("the database is closed");
      }
      await worker.terminate();
    },
  };
}

/** The embedded databases open in this process, by directory: the subgraphs of one platform share one. */
const shared = new Map<string, { thread: Promise<Thread>; users: number }>();

async function sharedThread(dataDir: string | undefined): Promise<{ thread: Thread; release(): Promise<void> }> {
  if (!dataDir) {
    const thread = await openThread(undefined);
    return { thread, release: () => thread.close() };
  }
  const key = resolve(dataDir);
  const entry = shared.get(key) ?? { thread: openThread(key), users: 0 };
  shared.set(key, entry);
  entry.users++;
  let thread: Thread;
  try {
    thread = await entry.thread;
  } catch (error) {
    if (--entry.users === 0) shared.delete(key);
    throw error;
  }
  return {
    thread,
    async release() {
      if (--entry.users > 0) return;
      shared.delete(key);
      await thread.close();
    },
  };
}

/**
 * Embedded PostgreSQL (PGlite) in a worker thread of its own. PGlite runs the database synchronously in WebAssembly:
 * on the event loop, every statement held up every request, and a large read (a tenant hierarchy: 1,200 rows) was
 * 40% of the CPU of its own request. Here the database works on another core while the event loop serves requests;
 * rows come back as structured clones. Prisma's driver adapter runs in the thread too (its result sets are plain
 * values); this side forwards each adapter call.
 *
 * One database per directory serves every subgraph that opens it, each in its own Postgres `schema`: one PostgreSQL
 * in WebAssembly rather than three (docs/decisions.md, "A light embedded platform").
 */
export async function openPglite(dataDir: string | undefined, schema = "public"): Promise<Database> {
  const { thread, release } = await sharedThread(dataDir);
  let closed = false;
  const call = <T>(request: PgliteCall) =>
    closed ? Promise.reject(new Error("the database is closed")) : thread.call<T>(request);

  const runner = (tx?: number): SqlRunner => {
    const query = <Row>(sql: string, params: unknown[] = []) => call<Row[]>({ op: "query", schema, sql, params, tx });
    return { exec: (sql) => call({ op: "exec", schema, sql, tx }), query, prepared: query };
  };
  const info = { provider: "postgres", adapterName: thread.adapterName } as const;
  const queryable = (target: { adapter?: number; tx?: number }) => ({
    ...info,
    queryRaw: (query: SqlQuery) => call<SqlResultSet>({ op: "queryRaw", schema, query, ...target }),
    executeRaw: (query: SqlQuery) => call<number>({ op: "executeRaw", schema, query, ...target }),
  });
  const connection = (adapter: number): SqlDriverAdapter => ({
    ...queryable({ adapter }),
    executeScript: (script) => call({ op: "executeScript", schema, adapter, script }),
    async startTransaction(isolationLevel): Promise<Transaction> {
      const { tx, options } = await call<{ tx: number; options: TransactionOptions }>({
        op: "startTransaction",
        schema,
        adapter,
        isolationLevel,
      });
      return {
        ...queryable({ tx }),
        options,
        commit: () => call({ op: "commit", tx }),
        rollback: () => call({ op: "rollback", tx }),
      };
    },
    // Prisma names the schema in every statement it writes.
    getConnectionInfo: () => ({ ...thread.connectionInfo, schemaName: schema }),
    dispose: () => call({ op: "dispose", adapter }),
  });
  const adapter: SqlMigrationAwareDriverAdapterFactory = {
    ...info,
    connect: async () => connection(0),
    connectToShadowDb: async () => connection(await call<number>({ op: "shadow" })),
  };

  return {
    kind: "pglite",
    adapter,
    ...runner(),
    async transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
      const tx = await call<number>({ op: "begin", schema });
      let result: T;
      try {
        result = await work(runner(tx));
      } catch (error) {
        // The work's error is the one to report; a failed rollback is logged beside it.
        await call({ op: "end", tx, commit: false }).catch((rollback: Error) =>
          logger.warn("rollback failed", { error: rollback.message }),
        );
        throw error;
      }
      await call({ op: "end", tx, commit: true });
      return result;
    },
    async listen(channel, onNotify) {
      const listener = await call<number>({ op: "listen", channel });
      thread.notified.set(listener, onNotify);
      return async () => {
        thread.notified.delete(listener);
        await call({ op: "unlisten", listener });
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await release();
    },
  };
}
