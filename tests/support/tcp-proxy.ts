import { connect, createServer, type Socket } from "node:net";

/**
 * A TCP proxy in front of a server the tests share (NATS, Redis, PostgreSQL), so one test can take the server away
 * from the clients it made (and only those) without stopping it for everyone else.
 */
export interface TcpProxy {
  port: number;
  /** The target's URL with the proxy in its place: `nats://127.0.0.1:<port>`. */
  url(scheme: string, path?: string): string;
  /** Drops every connection through the proxy and refuses new ones until `restore`: the server is down. */
  cut(): void;
  restore(): void;
  /** Keeps what the server sends (acks, answers) from its clients until `releaseReplies`; requests still go through. */
  holdReplies(): void;
  releaseReplies(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let cut = false;
  let holding = false;
  const held: { client: Socket; chunk: Buffer }[] = [];

  const server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on("error", end);
      socket.on("close", end);
    }
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => {
      if (holding) held.push({ client, chunk });
      else client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };

  const dropAll = () => {
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
    held.length = 0;
  };

  return {
    port,
    url: (scheme, path = "") => `${scheme}://127.0.0.1:${port}${path}`,
    cut() {
      cut = true;
      dropAll();
    },
    restore() {
      cut = false;
    },
    holdReplies() {
      holding = true;
    },
    releaseReplies() {
      holding = false;
      for (const { client, chunk } of held.splice(0)) if (!client.destroyed) client.write(chunk);
    },
    async close() {
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
