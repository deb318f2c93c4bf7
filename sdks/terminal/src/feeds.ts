import type { FormattedExecutionResult } from "graphql";
import { type Client, createClient } from "graphql-ws";
import { TerminalApiError } from "./errors";

/** How a feed connects: the address, the WebSocket (Node's `ws` where there is no global one) and the credential. */
export interface FeedConnection {
  url: string;
  WebSocket?: unknown;
  /** The credential for the next connection; asked again at every reconnection so a renewed token is used. */
  authorization: () => Promise<Record<string, string>>;
  /** Drops the credential the platform refused (close 4401), so the next connection gets a fresh one. */
  refused?: (params: Record<string, string>) => void;
  /** Waits before reconnection `attempt` (0 first); an exponential back-off by default. */
  backoff?: (attempt: number) => Promise<void>;
  /** Ends the feed, even while it waits for the next message. */
  signal?: AbortSignal;
}

/** Closes after which reconnecting cannot help: a malformed request, a duplicate subscription id. */
const fatalCloses = new Set([4400, 4406, 4409]);
const UNAUTHORIZED_CLOSE = 4401;

const defaultBackoff = (attempt: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.min(10_000, 250 * 2 ** attempt) * Math.random()));

const closeCode = (error: unknown) =>
  error && typeof error === "object" && "code" in error && typeof error.code === "number" ? error.code : undefined;

/** GraphQL errors as one typed error: the first error's code and details, as the REST face would answer. */
function graphQLError(errors: readonly { message: string; extensions?: Record<string, unknown> }[]) {
  const [first] = errors;
  const extensions = first?.extensions ?? {};
  return new TerminalApiError(
    typeof extensions.status === "number" ? extensions.status : 400,
    typeof extensions.code === "string" ? extensions.code : "invalid_request",
    first?.message ?? "the subscription was refused",
    (extensions.details as Record<string, unknown> | undefined) ?? {},
  );
}

export interface FeedSpec<Current, Message, Item> {
  /** The state as it is now, read on the fresh connection once the subscription has been asked for. */
  current: (client: Client) => Promise<Current>;
  subscription: { query: string; variables: Record<string, unknown> };
  /** What the iterator yields: the state read, then each message. */
  fromCurrent: (current: Current) => Item[];
  fromMessage: (message: Message) => Item;
  /**
   * Whether the state read already says what a message that arrived while it was read says (or something newer):
   * such a message is dropped, so an older state never follows a newer one. Without it every message is yielded.
   */
  covered?: (current: Current, message: Message) => boolean;
  /** Whether the feed ends after this item (an intent in a terminal state). */
  ends?: (item: Item) => boolean;
}

/**
 * The results of one operation, kept from the moment it is asked for, and how many wait unread. graphql-ws' own
 * `iterate` waits forever when the connection closes while its consumer is busy between two results, which is exactly
 * when a terminal's network drops.
 */
function operation<Data>(client: Client, payload: { query: string; variables: Record<string, unknown> }) {
  const queue: FormattedExecutionResult<Data, unknown>[] = [];
  let ended: { error?: unknown } | undefined;
  let wake = () => {};
  const dispose = client.subscribe<Data>(payload, {
    next: (result) => {
      queue.push(result);
      wake();
    },
    error: (error) => {
      ended = { error };
      wake();
    },
    complete: () => {
      ended = {};
      wake();
    },
  });
  async function* results() {
    try {
      for (;;) {
        const result = queue.shift();
        if (result) yield result;
        else if (ended) break;
        else
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
      }
      if (ended?.error !== undefined) throw ended.error;
    } finally {
      dispose();
    }
  }
  return { results: results(), waiting: () => queue.length, dispose };
}

/** One query over the feed's own connection, as its subscriber. */
export async function queryOver<Data>(client: Client, query: string, variables: Record<string, unknown>) {
  for await (const result of operation<Data>(client, { query, variables }).results) {
    if (result.errors?.length) throw graphQLError(result.errors);
    if (result.data) return result.data;
  }
  throw new TerminalApiError(500, "internal_error", "the query answered nothing");
}

/**
 * Subscribes, then reads the current state, so a change made while it is read arrives as a message; the messages that
 * arrived before the read's answer and that it covers are dropped.
 */
async function* oneConnection<Current, Message, Item>(
  client: Client,
  spec: FeedSpec<Current, Message, Item>,
  connected: () => void,
): AsyncGenerator<Item, boolean> {
  const messages = operation<Message>(client, spec.subscription);
  try {
    const current = await spec.current(client);
    let early = messages.waiting();
    for (const item of spec.fromCurrent(current)) {
      yield item;
      if (spec.ends?.(item)) return true;
    }
    connected();
    for await (const result of messages.results) {
      const duringRead = early-- > 0;
      if (result.errors?.length) throw graphQLError(result.errors);
      if (!result.data || (duringRead && spec.covered?.(current, result.data))) continue;
      const item = spec.fromMessage(result.data);
      yield item;
      if (spec.ends?.(item)) return true;
    }
    return true;
  } finally {
    messages.dispose();
  }
}

/**
 * A subscription that outlives its connection: after a drop it connects again with a fresh credential, subscribes
 * again and reads the current state, so a change made while it was away, or while it read, is not missed. A state
 * equal to the one yielded just before is not yielded twice.
 */
export async function* resilientFeed<Current, Message, Item>(
  connection: FeedConnection,
  spec: FeedSpec<Current, Message, Item>,
): AsyncGenerator<Item> {
  const backoff = connection.backoff ?? defaultBackoff;
  let attempt = 0;
  let last: string | undefined;
  const { signal } = connection;
  while (!signal?.aborted) {
    let params: Record<string, string>;
    try {
      params = await connection.authorization();
    } catch (error) {
      // A refused device (suspended, decommissioned) is the caller's to hear; a network failure is waited out.
      if (error instanceof TerminalApiError) throw error;
      await backoff(attempt++);
      continue;
    }
    const client = createClient({
      url: connection.url,
      webSocketImpl: connection.WebSocket,
      retryAttempts: 0,
      // One connection for the subscription and the read, not one each.
      lazy: false,
      // The operations hear of a lost connection themselves, and the loop below decides what follows.
      onNonLazyError: () => {},
      connectionParams: params,
    });
    const stop = () => void client.dispose();
    signal?.addEventListener("abort", stop);
    try {
      const items = oneConnection(client, spec, () => {
        attempt = 0;
      });
      for await (const item of items) {
        const text = JSON.stringify(item);
        if (text !== last) yield item;
        last = text;
      }
      return;
    } catch (error) {
      if (signal?.aborted) return;
      // graphql-ws ends with the server's GraphQL errors (an array), a close event, or a socket error.
      if (Array.isArray(error)) throw graphQLError(error);
      const code = closeCode(error);
      if (error instanceof TerminalApiError || (code !== undefined && fatalCloses.has(code))) throw error;
      if (code === UNAUTHORIZED_CLOSE) connection.refused?.(params);
      await backoff(attempt++);
    } finally {
      signal?.removeEventListener("abort", stop);
      await client.dispose();
    }
  }
}
