import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
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
import { makeOwnerOnly, ownerOnlyFromNow } from "./file-modes";
import type { Database, SqlRunner } from "./sql-runner";

/** What the main thread asks of the databases' thread (pglite-thread.ts). */
export type PgliteCall =
  | { op: "open"; dataDir?: string; load?: Uint8Array }
  | { op: "query"; sql: string; params: unknown[]; tx?: number }
  | { op: "exec"; sql: string; tx?: number }
  | { op: "begin" }
  | { op: "end"; tx: number; commit: boolean }
  | { op: "listen"; channel: string }
  | { op: "unlisten"; listener: number }
  | { op: "queryRaw" | "executeRaw"; query: SqlQuery; adapter?: number; tx?: number }
  | { op: "executeScript"; adapter: number; script: string }
  | { op: "startTransaction"; adapter: number; isolationLevel?: IsolationLevel }
  | { op: "commit" | "rollback"; tx: number }
  | { op: "shadow" }
  | { op: "dispose"; adapter: number }
  | { op: "dump" }
  | { op: "close" };
export type PgliteRequest = PgliteCall & { id: number; database: number };

export type TransferredError = { name: string; message: string } & Record<string, unknown>;
export type PgliteReply = { notify: number } | { id: number; result?: unknown; error?: TransferredError };

const threadFile = new URL(
  import.meta.url.endsWith(".ts") ? "./pglite-thread.ts" : "./pglite-thread.js",
  import.meta.url,
);

function startThread(): Worker {
  // Not the process's own options: a script given with `--eval` or a test runner's hooks are not the thread's.
  const settings = { execArgv: [] };
  if (threadFile.pathname.endsWith(".js")) return new Worker(threadFile, settings);
  // Run from sources (tests, tsx), the thread needs tsx to load TypeScript, registered before its first import.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api")).href;
  const file = JSON.stringify(threadFile.href);
  return new Worker(`import(${JSON.stringify(tsx)}).then(({ tsImport }) => tsImport(${file}, ${file}))`, {
    ...settings,
    eval: true,
  });
}

interface Thread {
  call<T>(database: number, request: PgliteCall): Promise<T>;
  notified: Map<number, () => void>;
  /** Ends the thread once no database is open on it. */
  release(): Promise<void>;
}

function openThread(): Thread {
  const worker = startThread();
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const notified = new Map<number, () => void>();
  let nextId = 1;
  let failure: Error | undefined;
  const fail = (error: Error) => {
    if (!failure) logger.error("the embedded databases' thread stopped", { error: error.message });
    failure ??= error;
    for (const call of pending.values()) call.reject(failure);
    pending.clear();
  };
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the PGlite thread exited with code ${code}`)));
  worker.on("message", (reply: PgliteReply) => {
    if ("notify" in reply) return notified.get(reply.notify)?.();
    const call = pending.get(reply.id);
    pending.delete(reply.id);
    // The thread keeps the process alive only while it owes an answer, as an open socket would.
    if (pending.size === 0) worker.unref();
    if (reply.error) call?.reject(Object.assign(new Error(reply.error.message), reply.error));
    else call?.resolve(reply.result);
  });
  worker.unref();
  return {
    notified,
    call<T>(database: number, request: PgliteCall): Promise<T> {
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      worker.ref();
      worker.postMessage({ ...request, id, database } satisfies PgliteRequest);
      return new Promise<T>((resolve, reject) =>
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject }),
      );
    },
    async release() {
      failure ??= new Error("the database is closed");
      await worker.terminate();
    },
  };
}

/** The thread of this process's embedded databases, while any is open. */
let shared: { thread: Thread; open: number } | undefined;
let nextDatabase = 1;

/**
 * Embedded PostgreSQL (PGlite) in a worker thread. PGlite runs the database synchronously in WebAssembly: on the event
 * loop, every statement held up every request, and a large read (a tenant hierarchy: 1,200 rows) was 40% of the CPU of
 * its own request. There the database works on another core while the event loop serves requests; rows come back as
 * structured clones. Prisma's driver adapter runs in the thread too (its result sets are plain values); this side
 * forwards each adapter call. Every database of the process shares the one thread (each its own PGlite, its own
 * connection): a thread per database cost its own heap, code and WebAssembly compilation (docs/decisions.md, "A light
 * embedded platform").
 */
export async function openPglite(dataDir: string | undefined, load?: Uint8Array): Promise<Database> {
  if (dataDir) {
    ownerOnlyFromNow();
    mkdirSync(dataDir, { recursive: true });
  }
  shared ??= { thread: openThread(), open: 0 };
  const host = shared;
  host.open++;
  const database = nextDatabase++;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    if (--host.open > 0) return;
    if (shared === host) shared = undefined;
    await host.thread.release();
  };
  const call = <T>(request: PgliteCall) =>
    closed ? Promise.reject(new Error("the database is closed")) : host.thread.call<T>(database, request);
  let opened: { adapterName: string; connectionInfo: ConnectionInfo };
  try {
    opened = await call({ op: "open", dataDir, load });
  } catch (error) {
    await close();
    throw error;
  }
  // After the open: a database loaded from a backup's tarball has just been written, with PGlite's modes.
  if (dataDir) makeOwnerOnly(dataDir);

  const runner = (tx?: number): SqlRunner => {
    const query = <Row>(sql: string, params: unknown[] = []) => call<Row[]>({ op: "query", sql, params, tx });
    return { exec: (sql) => call({ op: "exec", sql, tx }), query, prepared: query };
  };
  const info = { provider: "postgres", adapterName: opened.adapterName } as const;
  const queryable = (target: { adapter?: number; tx?: number }) => ({
    ...info,
    queryRaw: (query: SqlQuery) => call<SqlResultSet>({ op: "queryRaw", query, ...target }),
    executeRaw: (query: SqlQuery) => call<number>({ op: "executeRaw", query, ...target }),
  });
  const connection = (adapter: number): SqlDriverAdapter => ({
    ...queryable({ adapter }),
    executeScript: (script) => call({ op: "executeScript", adapter, script }),
    async startTransaction(isolationLevel): Promise<Transaction> {
      const { tx, options } = await call<{ tx: number; options: TransactionOptions }>({
        op: "startTransaction",
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
    getConnectionInfo: () => opened.connectionInfo,
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
      const tx = await call<number>({ op: "begin" });
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
      host.thread.notified.set(listener, onNotify);
      return async () => {
        host.thread.notified.delete(listener);
        await call({ op: "unlisten", listener });
      };
    },
    dump: () => call<Uint8Array>({ op: "dump" }),
    async close() {
      if (!closed) await call({ op: "close" }).catch(() => undefined);
      await close();
    },
  };
}
