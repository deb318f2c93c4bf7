import { EventEmitter, on } from "node:events";
import { buildSchema } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { queryOver, resilientFeed } from "./feeds";

// A graphql-ws server in the test: one counter, read by a query and followed by a subscription. The feed must read
// it again after each reconnection, so that a change made while it was away shows.

const schema = buildSchema(`
  type Query { counter: Int! }
  type Subscription { counterChanged: Int! }
`);

async function counterServer() {
  const changes = new EventEmitter();
  let counter = 0;
  const connections: { token: unknown }[] = [];
  const server = new WebSocketServer({ port: 0 });
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const sockets = new Set<WebSocket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const subscribed = new EventEmitter();
  let afterRead: (() => void) | undefined;
  const rootValue = {
    counter: () => {
      const read = counter;
      afterRead?.();
      afterRead = undefined;
      return read;
    },
    counterChanged: async function* () {
      subscribed.emit("subscribed");
      for await (const [value] of on(changes, "change")) yield { counterChanged: value };
    },
  };
  const ws = useServer(
    {
      schema,
      roots: { query: rootValue, subscription: rootValue },
      onConnect: ({ connectionParams, extra }) => {
        connections.push({ token: connectionParams?.authorization });
        // As the edge refuses a token: close 4401, after which a client connects again with a fresh one.
        if (connectionParams?.authorization === "expired") extra.socket.close(4401, "Unauthorized");
        return true;
      },
    },
    server,
  );
  const { port } = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}`,
    connections,
    set(value: number) {
      counter = value;
      changes.emit("change", value);
    },
    /** Changes the counter while no connection is open to hear it. */
    setUnheard(value: number) {
      counter = value;
    },
    /** Cuts every connection without a close frame, as a lost network does. */
    drop: () => {
      for (const socket of sockets) socket.terminate();
    },
    /** Runs `change` once, just after the counter's next read. */
    onNextRead(change: () => void) {
      afterRead = change;
    },
    /** Resolves at the next subscription the server starts. */
    nextSubscription: () => new Promise<void>((resolve) => subscribed.once("subscribed", () => resolve())),
    close: async () => {
      await ws.dispose();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A transport that sends the feed's read only once the server has started the subscription asked for before it (and
 * after `beforeRead`), so what happens around the read is not left to timing.
 */
function readsAfterSubscribing(server: Awaited<ReturnType<typeof counterServer>>, beforeRead = () => {}) {
  return class extends WebSocket {
    #started: Promise<void> | undefined;
    override send(data: string) {
      const { type, payload } = JSON.parse(data) as { type: string; payload?: { query: string } };
      if (type === "subscribe" && payload?.query.includes("counterChanged")) this.#started = server.nextSubscription();
      if (type !== "subscribe" || payload?.query !== "{ counter }" || !this.#started) return super.send(data);
      void this.#started.then(() => {
        beforeRead();
        super.send(data);
      });
    }
  } as typeof WebSocket;
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

const counterFeed = (url: string, tokens: string[], refused: string[] = [], socket: typeof WebSocket = WebSocket) =>
  resilientFeed(
    {
      url,
      WebSocket: socket,
      authorization: async () => ({ authorization: tokens[0] ?? "none" }),
      refused: ({ authorization }) => {
        refused.push(authorization ?? "");
        tokens.shift();
      },
      backoff: async () => {},
    },
    {
      current: (client) => queryOver<{ counter: number }>(client, "{ counter }", {}),
      fromCurrent: ({ counter }) => [counter],
      subscription: { query: "subscription { counterChanged }", variables: {} },
      fromMessage: (message: { counterChanged: number }) => message.counterChanged,
      covered: ({ counter }, message) => message.counterChanged <= counter,
      ends: (value) => value >= 100,
    },
  );

describe("a feed", () => {
  it("reads the current state at the start and again after a drop, so a change made meanwhile is not missed", async () => {
    const server = await counterServer();
    close = server.close;
    server.setUnheard(1);
    const subscribed = server.nextSubscription();
    const feed = counterFeed(server.url, ["t1"]);
    expect((await feed.next()).value).toBe(1);
    const second = feed.next();
    await subscribed;
    server.set(2);
    expect((await second).value).toBe(2);

    const resubscribed = server.nextSubscription();
    server.drop();
    server.setUnheard(3);
    expect((await feed.next()).value).toBe(3);
    const last = feed.next();
    await resubscribed;
    server.set(100);
    expect((await last).value).toBe(100);
    expect((await feed.next()).done).toBe(true);
    expect(server.connections).toHaveLength(2);
  });

  it("subscribes before it reads, so a change made just after the read is not missed", async () => {
    const server = await counterServer();
    close = server.close;
    server.setUnheard(1);
    // Read first, the feed would miss 2 and hear only 100, which the subscription made after the read then gets.
    server.onNextRead(() => {
      server.set(2);
      void server.nextSubscription().then(() => server.set(100));
    });
    const feed = counterFeed(server.url, ["t1"], [], readsAfterSubscribing(server));
    expect((await feed.next()).value).toBe(1);
    expect((await feed.next()).value).toBe(2);
    await feed.return(undefined);
  });

  it("drops a message that arrived during the read when the read already shows something newer", async () => {
    const server = await counterServer();
    close = server.close;
    // 4 is sent to the subscriber, then 5 is made unheard, both before the read: the read shows 5, then 4 arrives.
    const feed = counterFeed(
      server.url,
      ["t1"],
      [],
      readsAfterSubscribing(server, () => {
        server.set(4);
        server.setUnheard(5);
      }),
    );
    expect((await feed.next()).value).toBe(5);
    const next = feed.next();
    server.set(6);
    expect((await next).value).toBe(6);
    await feed.return(undefined);
  });

  it("does not yield the same state twice when the read after a drop finds nothing new", async () => {
    const server = await counterServer();
    close = server.close;
    server.setUnheard(5);
    const subscribed = server.nextSubscription();
    const feed = counterFeed(server.url, ["t1"]);
    expect((await feed.next()).value).toBe(5);
    const next = feed.next();
    await subscribed;
    const resubscribed = server.nextSubscription();
    server.drop();
    await resubscribed;
    server.set(6);
    expect((await next).value).toBe(6);
    await feed.return(undefined);
  });

  it("connects again with a fresh credential after the server refused the one it had", async () => {
    const server = await counterServer();
    close = server.close;
    server.setUnheard(7);
    const refused: string[] = [];
    const feed = counterFeed(server.url, ["expired", "fresh"], refused);
    expect((await feed.next()).value).toBe(7);
    expect(refused).toEqual(["expired"]);
    expect(server.connections.map(({ token }) => token)).toEqual(["expired", "fresh"]);
    await feed.return(undefined);
  });
});
