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
  const rootValue = {
    counter: () => counter,
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
    /** Resolves at the next subscription the server starts. */
    nextSubscription: () => new Promise<void>((resolve) => subscribed.once("subscribed", () => resolve())),
    close: async () => {
      await ws.dispose();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

const counterFeed = (url: string, tokens: string[], refused: string[] = []) =>
  resilientFeed(
    {
      url,
      WebSocket,
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
