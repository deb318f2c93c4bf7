import { randomBytes } from "node:crypto";
import { hostSubgraph, serveSubgraph } from "@pos-cloud/common";
import { memoryBus } from "@pos-cloud/common/messaging";
import { startEdge } from "@pos-cloud/edge";
import { openPortal, portal } from "@pos-cloud/portal";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { isolatedStorage } from "../support/databases";

/** What the logger writes from now on; access lines follow the response, so tests poll for them. */
function captureLog() {
  const written: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  const text = () => written.join("");
  const lines = () =>
    text()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { text, lines };
}

// The portal behind its own HTTP server, the edge reaching it by URL; nothing listens where pos and payments are.
describe("request ids, access logs, health and readiness", () => {
  const internalToken = randomBytes(32).toString("hex");
  const closers: (() => Promise<unknown>)[] = [];
  let edgeUrl: string;
  let adminUrl: string;
  let portalUrl: string;
  let portalDeps: Awaited<ReturnType<typeof openPortal>>;

  beforeAll(async () => {
    const storage = await isolatedStorage(["portal"]);
    closers.push(() => storage.drop());
    portalDeps = await openPortal({ url: storage.urls.portal, masterKey: randomBytes(32) });
    closers.unshift(() => portalDeps.close());
    const server = await serveSubgraph(
      hostSubgraph(portal, portalDeps, internalToken),
      { port: 0, host: "127.0.0.1" },
      { database: () => portalDeps.db.query("SELECT 1") },
    );
    closers.unshift(() => server.close());
    portalUrl = server.url;
    const edge = await startEdge({
      port: 0,
      host: "127.0.0.1",
      internalToken,
      bus: memoryBus(),
      // Port 1 on loopback: nothing listens there.
      redisUrl: "redis://127.0.0.1:1",
      subgraphs: { portal: { url: portalUrl }, pos: { url: "http://127.0.0.1:1/" }, payments: { url: portalUrl } },
    });
    closers.unshift(() => edge.close());
    edgeUrl = `http://127.0.0.1:${edge.port}`;
    adminUrl = edge.adminUrl;
  });
  afterAll(async () => {
    for (const close of closers) await close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("carries the client's request id to the subgraph and logs it on both sides", async () => {
    const log = captureLog();
    const requestId = `req-${randomBytes(6).toString("hex")}`;
    const answer = await fetch(`${edgeUrl}/api/v1/jwks/device`, { headers: { "x-request-id": requestId } });
    await answer.arrayBuffer();
    expect(answer.headers.get("x-request-id")).toBe(requestId);
    const ofRequest = () => log.lines().filter((line) => line.request_id === requestId);
    await expect
      .poll(ofRequest)
      .toContainEqual(
        expect.objectContaining({ message: "request", method: "GET", path: "/api/v1/jwks/device", status: 200 }),
      );
    expect(ofRequest()).toContainEqual(expect.objectContaining({ message: "subgraph request", status: 200 }));
  });

  it("logs an unexpected failure in a subgraph under the request's id and answers internal_error", async () => {
    vi.spyOn(portalDeps.signingKeys, "jwks").mockRejectedValue(new Error("key store on fire"));
    const log = captureLog();
    const requestId = `req-${randomBytes(6).toString("hex")}`;
    const answer = await fetch(`${edgeUrl}/api/v1/jwks/device`, { headers: { "x-request-id": requestId } });
    expect({ status: answer.status, body: await answer.json() }).toMatchObject({
      status: 500,
      body: { code: "internal_error", message: "internal error" },
    });
    const failure = log.lines().find((line) => line.message === "unexpected error in resolver");
    expect(failure).toMatchObject({ level: "error", request_id: requestId, path: "jwks" });
    expect(String(failure?.error)).toContain("key store on fire");
  });

  it("replaces an unsafe request id and never logs a token or a query's secrets", async () => {
    const log = captureLog();
    const token = `secret-${randomBytes(8).toString("hex")}`;
    const answer = await fetch(`${edgeUrl}/api/v1/users/me?payment_token=${token}`, {
      headers: { authorization: `Bearer ${token}`, "x-request-id": "bad id forged" },
    });
    await answer.arrayBuffer();
    expect(answer.status).toBe(401);
    const requestId = answer.headers.get("x-request-id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(() => log.lines().some((line) => line.request_id === requestId)).toBe(true);
    expect(log.text()).not.toContain(token);
    expect(log.text()).not.toContain("forged");
  });

  it("answers /health always and /ready (on the operator's port) with 503 naming what is down", async () => {
    expect((await fetch(`${edgeUrl}/health`)).status).toBe(200);
    const ready = await fetch(`${adminUrl}/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { down: string[] }).down.sort()).toEqual(["pos", "redis"]);
    const subgraph = await fetch(new URL("/ready", portalUrl));
    expect({ status: subgraph.status, body: await subgraph.json() }).toEqual({
      status: 200,
      body: { status: "ready" },
    });
    expect((await fetch(new URL("/health", portalUrl))).status).toBe(200);
  });
});
