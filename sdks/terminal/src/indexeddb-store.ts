import type { OfflineStore, QueueRecord } from "./offline-store";

const RECORDS = "records";

// The part of IndexedDB this store uses, typed here: the platform's own type check runs without the DOM library.
interface Settles {
  error: unknown;
  onerror: (() => void) | null;
}
interface IdbRequest<T = unknown> extends Settles {
  result: T;
  onsuccess: (() => void) | null;
}
interface IdbTransaction extends Settles {
  oncomplete: (() => void) | null;
  onabort: (() => void) | null;
  objectStore(name: string): {
    add(value: unknown): unknown;
    clear(): unknown;
    getAll(): IdbRequest<unknown[]>;
  };
}
interface IdbDatabase {
  createObjectStore(name: string, options: { autoIncrement: boolean }): unknown;
  transaction(name: string, mode: "readonly" | "readwrite", options: { durability: "strict" }): IdbTransaction;
}
/** `indexedDB`, or a stand-in with the same API. */
export interface IdbFactory {
  open(name: string, version: number): IdbRequest<IdbDatabase> & { onupgradeneeded: (() => void) | null };
}

const done = (request: IdbRequest | IdbTransaction) =>
  new Promise<void>((resolve, reject) => {
    if ("oncomplete" in request) {
      request.oncomplete = () => resolve();
      request.onabort = request.onerror = () => reject(request.error);
    } else {
      request.onsuccess = () => resolve();
      request.onerror = () => reject(request.error);
    }
  });

/**
 * The offline queue in the browser's or web view's IndexedDB (database `name`, one object store of records in the
 * order they were written). Each write is its own transaction, committed with `durability: "strict"` before it
 * returns; `replace` clears and rewrites in one transaction, so a closed tab keeps the old history or the new one.
 */
export function indexedDbStore(
  name = "pos-cloud-offline-queue",
  factory: IdbFactory = (globalThis as unknown as { indexedDB: IdbFactory }).indexedDB,
): OfflineStore {
  let opened: Promise<IdbDatabase> | undefined;
  const database = () => {
    opened ??= new Promise((resolve, reject) => {
      const request = factory.open(name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(RECORDS, { autoIncrement: true });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    return opened;
  };
  const transaction = async (mode: "readonly" | "readwrite") =>
    (await database()).transaction(RECORDS, mode, { durability: "strict" });

  return {
    async load() {
      const records = (await transaction("readonly")).objectStore(RECORDS).getAll();
      await done(records);
      return records.result as QueueRecord[];
    },
    async append(record) {
      const writing = await transaction("readwrite");
      writing.objectStore(RECORDS).add(record);
      await done(writing);
    },
    async replace(records) {
      const writing = await transaction("readwrite");
      const store = writing.objectStore(RECORDS);
      store.clear();
      for (const record of records) store.add(record);
      await done(writing);
    },
  };
}
