import { TerminalApiError } from "./errors";
import type {
  OfflineStore,
  QueuedBill,
  QueuedCashPayment,
  QueuedEntry,
  QueuedOrder,
  QueuedRef,
  QueueRecord,
  Uploaded,
} from "./offline-store";
import { type Resolve, retryable, sendEntry } from "./offline-upload";
import type { TerminalClient } from "./terminal";

/** An entry and where it stands: waiting, done or refused. */
export interface EntryState {
  entry: QueuedEntry;
  status: "pending" | "done" | "refused";
  result?: Uploaded;
  refusal?: TerminalApiError;
}

export interface OfflineQueueOptions {
  store: OfflineStore;
  /** An entry the platform took: its order, bill or payment id. */
  onUploaded?: (entry: QueuedEntry, result: Uploaded) => void;
  /**
   * An entry the platform refused (its status and code: the day closed, the store suspended, the window passed), or
   * one refused without being sent because an entry it needs was refused (`dependency_refused`, status 424). It stays
   * in the queue, refused, until `dismiss`.
   */
  onRefused?: (entry: QueuedEntry, error: TerminalApiError) => void;
  /** A pass that stopped on an error it will try again after (no network, 5xx, the device token refused). */
  onRetry?: (error: unknown, attempt: number) => void;
  /** Milliseconds since the epoch: when an entry happened. Defaults to Date.now. */
  now?: () => number;
  /** Waits before retry `attempt` (0 first); an exponential back-off up to 30 s by default. */
  backoff?: (attempt: number, signal?: AbortSignal) => Promise<void>;
}

const defaultBackoff = (attempt: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, Math.min(30_000, 500 * 2 ** attempt) * (0.5 + Math.random() / 2));
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

const refOf = (ref: QueuedRef) => (typeof ref === "string" ? undefined : ref.entry);
const dependencyOf = (entry: QueuedEntry) =>
  entry.kind === "bill" ? refOf(entry.body.order) : entry.kind === "payment" ? refOf(entry.body.bill) : undefined;

/** Reads a store's history into the entries' states. */
function replay(records: QueueRecord[]) {
  const states = new Map<string, EntryState>();
  for (const record of records) {
    if (record.type === "added") {
      states.set(record.entry.id, { entry: record.entry, status: "pending" });
      continue;
    }
    const state = states.get(record.id);
    if (!state || record.type === "sending") continue;
    if (record.type === "done") Object.assign(state, { status: "done", result: record.result });
    else Object.assign(state, { status: "refused", refusal: TerminalApiError.of(record.status, record.error) });
  }
  return states;
}

/** The records that say the same as `states` of what is still needed: unfinished and refused entries, and the done ones they name. */
function compacted(states: Map<string, EntryState>): QueueRecord[] {
  const needed = new Set<string>();
  for (const { entry, status } of states.values()) {
    if (status === "done") continue;
    needed.add(entry.id);
    const dependency = dependencyOf(entry);
    if (dependency) needed.add(dependency);
  }
  return [...states.values()]
    .filter(({ entry }) => needed.has(entry.id))
    .flatMap(({ entry, result, refusal }): QueueRecord[] => [
      { type: "added", entry },
      ...(result ? [{ type: "done" as const, id: entry.id, result }] : []),
      ...(refusal ? [refusalRecord(entry.id, refusal)] : []),
    ]);
}

const refusalRecord = (id: string, error: TerminalApiError): QueueRecord => ({
  type: "refused",
  id,
  status: error.status,
  error: { code: error.code, message: error.message, details: error.details },
});

/** The queue's history in `store`, written one step at a time, and the entries' states read from it. */
async function journal(store: OfflineStore) {
  const states = replay(await store.load());
  // One write at a time: an entry appended while the history is being replaced would be lost with the old file.
  let writes = Promise.resolve();
  const serially = (op: () => Promise<void>) => {
    const done = writes.then(op);
    writes = done.catch(() => {});
    return done;
  };
  const append = (record: QueueRecord) => serially(() => store.append(record));
  const compact = () => serially(() => store.replace(compacted(states)));
  await compact();
  return { states, append, compact };
}

type Journal = Awaited<ReturnType<typeof journal>>;

/** One upload pass over a journal's waiting entries, in order; it throws the first error worth a retry. */
function uploadPass(terminal: TerminalClient, { states, append, compact }: Journal, options: OfflineQueueOptions) {
  const resolve: Resolve = (ref) => {
    if (typeof ref === "string") return ref;
    const result = states.get(ref.entry)?.result;
    if (!result) throw new TypeError(`entry ${ref.entry} has no platform id yet`);
    return result.id;
  };

  async function settle(state: EntryState, outcome: Uploaded | TerminalApiError) {
    if (outcome instanceof TerminalApiError) {
      await append(refusalRecord(state.entry.id, outcome));
      Object.assign(state, { status: "refused", refusal: outcome });
      options.onRefused?.(state.entry, outcome);
    } else {
      await append({ type: "done", id: state.entry.id, result: { id: outcome.id } });
      Object.assign(state, { status: "done", result: { id: outcome.id } });
      options.onUploaded?.(state.entry, { id: outcome.id });
    }
  }

  async function upload(state: EntryState) {
    const dependency = dependencyOf(state.entry);
    const needed = dependency === undefined ? undefined : states.get(dependency);
    if (needed?.status === "refused")
      return settle(
        state,
        new TerminalApiError(424, "dependency_refused", `entry ${dependency} it needs was refused`, {
          entry: dependency,
          code: needed.refusal?.code,
        }),
      );
    // Sent again after a crash or a lost answer, its Idempotency-Key answers what the first attempt made.
    try {
      await settle(state, await sendEntry(terminal, state.entry, resolve));
    } catch (error) {
      if (!(error instanceof TerminalApiError) || retryable(error)) throw error;
      await settle(state, error);
    }
  }

  return async () => {
    let uploaded = false;
    for (const state of states.values())
      if (state.status === "pending") {
        await upload(state);
        uploaded = true;
      }
    // The file keeps what is still needed; this process keeps every entry, so its callers' references stay good.
    if (uploaded) await compact();
  };
}

/**
 * The terminal's store-and-forward queue for work done offline: orders, bills and cash payments (a card or QR
 * payment needs the network as it happens). Each entry is durable in `store` before the call recording it returns,
 * and is uploaded in order, exactly once (docs/decisions.md, "The terminal SDK's offline queue").
 */
export async function openOfflineQueue(terminal: TerminalClient, options: OfflineQueueOptions) {
  const { now = Date.now, backoff = defaultBackoff } = options;
  const history = await journal(options.store);
  const { states } = history;
  const pass = uploadPass(terminal, history, options);
  let last = Math.max(0, ...[...states.values()].map(({ entry }) => Date.parse(entry.occurred_at)));
  let running: Promise<void> | undefined;

  async function add(entry: QueuedOrder | QueuedBill | QueuedCashPayment): Promise<{ entry: string }> {
    const dependency = dependencyOf(entry as QueuedEntry);
    if (dependency !== undefined && !states.has(dependency))
      throw new TypeError(`no entry ${dependency} in the offline queue`);
    // Strictly increasing per terminal: the platform's times of a terminal's sales keep the order they were made in.
    last = Math.max(now(), last + 1);
    const queued = { ...entry, id: crypto.randomUUID(), occurred_at: new Date(last).toISOString() } as QueuedEntry;
    await history.append({ type: "added", entry: queued });
    states.set(queued.id, { entry: queued, status: "pending" });
    return { entry: queued.id };
  }

  /** One pass over the waiting entries, in order; it stops at the first error worth a retry and throws it. */
  const flush = () => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    /** Records an order (its time is now); bill it with `bill({ order: <this>, ... })`. */
    order: (body: QueuedOrder["body"]) => add({ kind: "order", body }),
    /** Records a bill of a queued order (`{ entry }`) or of an order already on the platform (its id). */
    bill: (body: QueuedBill["body"]) => add({ kind: "bill", body }),
    /** Records a cash payment of a queued bill or of a bill already on the platform. */
    cashPayment: (body: QueuedCashPayment["body"]) => add({ kind: "payment", body }),
    /** Every entry this process knows of, in the order it was recorded. */
    entries: (): EntryState[] => [...states.values()],
    flush,
    /** Passes until every entry is done or refused, waiting `backoff` after each failed one; `signal` ends it early. */
    async upload({ signal }: { signal?: AbortSignal } = {}) {
      for (let attempt = 0; !signal?.aborted; attempt++) {
        try {
          return await flush();
        } catch (error) {
          options.onRetry?.(error, attempt);
          await backoff(attempt, signal);
        }
      }
    },
    /** Forgets a refused entry once the app has dealt with it (and the entries that needed it). */
    async dismiss(id: string) {
      if (states.get(id)?.status !== "refused") throw new TypeError(`entry ${id} is not refused`);
      states.delete(id);
      await history.compact();
    },
  };
}

export type OfflineQueue = Awaited<ReturnType<typeof openOfflineQueue>>;
