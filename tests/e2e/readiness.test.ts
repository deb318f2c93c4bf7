import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { repositoryRoot } from "@pos-cloud/common";
import { natsBus } from "@pos-cloud/common/messaging";
import { startEdge } from "@pos-cloud/edge";
import { afterAll, describe, expect, it } from "vitest";
import { isolatedStorage } from "../support/databases";
import { natsUrl, onPostgres } from "../support/environment";
import { startTcpProxy } from "../support/tcp-proxy";

const natsReachable = await connect({ servers: natsUrl, timeout: 1000, reconnect: false }).then(
  async (nc) => {
    await nc.close();
    return true;
  },
  () => false,
);

const hostPort = (url: string, fallback: number) => {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || fallback) };
};

const readiness = async (url: string) => {
  const response = await fetch(new URL("/ready", url));
  return { status: response.status, body: (await response.json()) as { status: string; down?: string[] } };
};

// Issue 13: `GET /ready` names NATS when the bus cannot reach it, and the pos subgraph's names its database.
describe.runIf(natsReachable)("an edge on NATS, with NATS taken away", () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it("answers /ready 503 naming nats while NATS is unreachable, and 200 once it is back", async () => {
    const proxy = await startTcpProxy(hostPort(natsUrl.split(",")[0]!, 4222));
    closers.unshift(() => proxy.close());
    const namespace = `ready_${randomBytes(4).toString("hex")}`;
    const bus = await natsBus({ url: proxy.url("nats"), namespace });
    closers.unshift(async () => {
      await bus.close();
      const nc = await connect({ servers: natsUrl });
      const jsm = await jetstreamManager(nc);
      for (const topic of ["events_internal", "webhooks_delivery"]) await jsm.streams.delete(`${namespace}_${topic}`);
      await nc.close();
    });
    // The subgraphs answer their own /ready: this test is about the bus alone.
    const subgraphs: Server = createServer((_, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"status":"ready"}');
    });
    await new Promise<void>((resolve) => subgraphs.listen(0, "127.0.0.1", resolve));
    closers.unshift(() => new Promise((resolve) => subgraphs.close(resolve)));
    const subgraphUrl = `http://127.0.0.1:${(subgraphs.address() as AddressInfo).port}/`;
    const edge = await startEdge({
      port: 0,
      host: "127.0.0.1",
      internalToken: randomBytes(32).toString("hex"),
      bus,
      subgraphs: { portal: { url: subgraphUrl }, pos: { url: subgraphUrl }, payments: { url: subgraphUrl } },
    });
    closers.unshift(() => edge.close());
    const edgeUrl = edge.adminUrl;

    expect(await readiness(edgeUrl)).toEqual({ status: 200, body: { status: "ready" } });
    proxy.cut();
    expect(await readiness(edgeUrl)).toEqual({ status: 503, body: { status: "unavailable", down: ["nats"] } });
    proxy.restore();
    await expect.poll(async () => (await readiness(edgeUrl)).status, { timeout: 15_000 }).toBe(200);
  });
});

/** Resolves with the first line of `child`'s output that matches `pattern`; rejects if it ends first. */
function printed(child: ChildProcess, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = seen.match(pattern);
      if (match) resolve(match);
    });
    child.once("exit", (code) => reject(new Error(`ended with ${code} before printing ${pattern}: ${seen}`)));
  });
}

// The pos subgraph's own server (cluster mode) on PostgreSQL, reached through a proxy the test can cut.
describe.skipIf(!onPostgres)("the pos subgraph server with its database taken away", () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  }, 30_000);

  it("answers /ready 503 naming its database while PostgreSQL is unreachable, and 200 once it is back", async () => {
    const storage = await isolatedStorage(["pos"]);
    closers.push(() => storage.drop());
    const proxy = await startTcpProxy(hostPort(storage.urls.pos!, 5432));
    closers.unshift(() => proxy.close());
    const proxied = new URL(storage.urls.pos!);
    proxied.host = `127.0.0.1:${proxy.port}`;
    const server = spawn(process.execPath, ["--import", "tsx", join(repositoryRoot, "subgraphs/pos/src/server.ts")], {
      cwd: repositoryRoot,
      env: {
        ...process.env,
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_URL: proxied.toString(),
        INTERNAL_TOKEN: randomBytes(32).toString("hex"),
        MASTER_KEY: randomBytes(32).toString("hex"),
        PORTAL_URL: "http://127.0.0.1:1/",
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    closers.unshift(
      () =>
        new Promise((resolve) => {
          if (server.exitCode !== null) return resolve(undefined);
          server.once("exit", resolve);
          server.kill("SIGTERM");
        }),
    );
    const [, url] = await printed(server, /pos subgraph at (http:\S+)/);

    expect(await readiness(url!)).toEqual({ status: 200, body: { status: "ready" } });
    proxy.cut();
    expect(await readiness(url!)).toEqual({ status: 503, body: { status: "unavailable", down: ["database"] } });
    proxy.restore();
    await expect.poll(async () => (await readiness(url!)).status, { timeout: 15_000 }).toBe(200);
    // The server kept running through the outage and still serves GraphQL (with its credential only).
    const unauthenticated = await fetch(url!, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    expect(unauthenticated.status).toBe(401);
  }, 60_000);
});
