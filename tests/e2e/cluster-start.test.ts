import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import { createClient } from "graphql-ws";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type RunningCluster, startCluster } from "../../apps/platform/src/cluster";
import { freePort, localClusterConfig } from "../support/cluster";
import { isolatedStorage } from "../support/databases";
import { deviceToken } from "../support/device";
import { onPostgres, temporaryDirectory } from "../support/environment";
import { call, type Demo, signed } from "../support/gateway";
import { demoUser, readDemo } from "../support/platform";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

/** Resolves once `child` printed a line matching `pattern`; rejects if it ends first. */
function printed(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`ended with ${code} before printing ${pattern}: ${seen}`)));
  });
}

// Issue 13: `npm run start:cluster` on PostgreSQL, NATS JetStream and Redis; the cluster suite only.
describe.skipIf(!onPostgres)("the platform as a cluster of processes", () => {
  const closers: (() => Promise<unknown>)[] = [];
  let cluster: RunningCluster;
  let otherEdgeUrl: string;
  let demo: Demo;
  let receiver: WebhookReceiver;
  let posUrl: string;
  let posDatabase: pg.Client;
  let databaseUrls: Parameters<typeof localClusterConfig>[0]["databaseUrls"];
  const output: string[] = [];

  beforeAll(async () => {
    const storage = await isolatedStorage(["portal", "pos", "payments"]);
    closers.push(() => storage.drop());
    const dataDir = temporaryDirectory("pos-cloud-cluster-");
    closers.push(async () => dataDir.remove());
    const otherPort = await freePort();
    databaseUrls = storage.urls as Required<typeof storage.urls>;
    const config = await localClusterConfig({
      dataDir: dataDir.path,
      databaseUrls,
      workers: 2,
      allowPrivateWebhookUrls: true,
    });
    cluster = await startCluster(config, { output: (line) => output.push(line) });
    closers.unshift(() => cluster.close());
    posUrl = `http://127.0.0.1:${config.ports.pos}`;
    posDatabase = new pg.Client({ connectionString: storage.urls.pos });
    await posDatabase.connect();
    closers.unshift(() => posDatabase.end());
    // One more edge process on a port of its own, so the subscription is surely served by another process than the
    // REST calls.
    const edge = spawn(process.execPath, ["--import", "tsx", join(repositoryRoot, "apps/edge/src/main.ts")], {
      cwd: repositoryRoot,
      env: { ...cluster.processEnvironment, PORT: String(otherPort), ADMIN_PORT: "0", EDGE_INSTANCES: "1" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    closers.unshift(
      () =>
        new Promise((resolve) => {
          if (edge.exitCode !== null) return resolve(undefined);
          edge.once("exit", resolve);
          edge.kill("SIGTERM");
        }),
    );
    await printed(edge, /edge \d+ at /);
    otherEdgeUrl = `http://127.0.0.1:${otherPort}`;
    demo = readDemo(dataDir.path);
    receiver = await startWebhookReceiver();
    closers.unshift(() => receiver.close());
  }, 180_000);
  afterAll(async () => {
    for (const close of closers) await close();
  }, 60_000);

  it("stops before any process starts when a new DATA_DIR's master key does not open the databases' secrets", async () => {
    const fresh = temporaryDirectory("pos-cloud-cluster-other-key-");
    const lines: string[] = [];
    try {
      const config = await localClusterConfig({ dataDir: fresh.path, databaseUrls });
      await expect(startCluster(config, { output: (line) => lines.push(line) })).rejects.toThrow(
        /^the databases were made with another master key \(the portal database's secrets do not open with this one\): give that key with MASTER_KEY \(or its file DATA_DIR\/master.key\), or start on new databases with DATABASE_PREFIX/,
      );
    } finally {
      fresh.remove();
    }
    expect(lines).toEqual([]);
    expect((await fetch(`${cluster.baseUrl}/health`)).status).toBe(200);
  });

  it("writes demo.json with the cluster's edge address, as npm start does", () => {
    expect(demo.base_url).toBe(cluster.baseUrl);
    expect(output.filter((line) => line.includes("worker") && line.includes("running"))).toHaveLength(2);
  });

  it("takes the demo store's few orders as npm start does: one open, one billed, one paid", async () => {
    const terminal = await deviceToken(cluster.baseUrl, demo.device);
    const orders = await call(cluster.baseUrl, "GET", "/orders", undefined, { authorization: `Bearer ${terminal}` });
    expect((orders.body as unknown as { status: string }[]).map((order) => order.status).sort()).toEqual([
      "billed",
      "completed",
      "open",
    ]);
  });

  it("serves /health, /ready and /metrics on every worker, and /ready on the pos subgraph", async () => {
    expect(cluster.workerMetricsUrls).toHaveLength(2);
    for (const metricsUrl of cluster.workerMetricsUrls) {
      const scraped = await fetch(metricsUrl);
      expect(scraped.status).toBe(200);
      const text = await scraped.text();
      // The outbox gauges read the worker's own publisher; the dispatcher's series are registered there too.
      expect(text).toMatch(/^pgw_outbox_pending_count \d+$/m);
      expect(text).toContain("pgw_webhook_delivery_total");
      expect(text).toContain("nodejs_eventloop_lag_seconds");
      expect((await fetch(new URL("/health", metricsUrl))).status).toBe(200);
      const ready = await fetch(new URL("/ready", metricsUrl));
      const body = (await ready.json()) as { status: string; jobs: { name: string }[] };
      expect({ status: ready.status, body: body.status }).toEqual({ status: 200, body: "ready" });
      // Every worker runs the whole registry: each job claims its rows.
      expect(body.jobs.map((job) => job.name)).toEqual(
        expect.arrayContaining(["payments-outbox", "payment-poll", "gateway-sync", "pos-payment-recovery"]),
      );
    }
    const ready = await fetch(`${posUrl}/ready`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({ status: 200, body: { status: "ready" } });
  });

  it("answers /metrics on the edge's shared operator port for all its instances together, never on the public port", async () => {
    // A new connection per request, so that the primary spreads them over both instances, as clients would be.
    const get = (path: string) => fetch(`${cluster.baseUrl}${path}`, { headers: { connection: "close" } });
    const scrape = () => fetch(`${cluster.adminUrl}/metrics`, { headers: { connection: "close" } });
    for (const path of ["/metrics", "/ready"]) expect((await get(path)).status).toBe(404);
    const healthChecks = async () => {
      const text = await (await scrape()).text();
      const series = /^pgw_http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} (\d+)$/m;
      return Number(series.exec(text)?.[1] ?? 0);
    };
    const before = await healthChecks();
    for (let i = 0; i < 10; i++) expect((await get("/health")).status).toBe(200);
    // Per instance, each scrape would count what the instance it reached served: about half, differently each time.
    for (let i = 0; i < 4; i++) expect(await healthChecks()).toBe(before + 10);
  });

  it("completes a QR payment made through POS from the gateway's event, which a worker consumes", async () => {
    const terminal = await deviceToken(cluster.baseUrl, demo.device);
    const api = async (method: string, path: string, body?: unknown) =>
      call(cluster.baseUrl, method, path, body, { authorization: `Bearer ${terminal}` });
    const order = await api("POST", "/orders", {
      order_type: "dine_in",
      table_number: `C${randomBytes(3).toString("hex")}`,
      items: [{ sequence: 1, item_name: "Ramen", quantity: 2, unit_price: 1000 }],
    });
    expect(order.status).toBe(201);
    const bill = await api("POST", "/bills", {
      order_id: order.body.id,
      staff_code: demoUser(demo, "STAFF").login_id,
      tax_percentage: 10,
    });
    expect(bill.status).toBe(201);
    const payment = await api("POST", "/payments", {
      bill_id: bill.body.id,
      amount: bill.body.total_amount,
      payment_method: { type: "QR" },
    });
    expect(payment.status).toBe(201);
    expect(payment.body).toMatchObject({ status: "pending", payment_token: expect.stringMatching(/^pt_/) });
    const confirmed = await call(
      cluster.baseUrl,
      "POST",
      `/v1/payment_intents/${payment.body.payment_intent_id}/confirm`,
      {
        payment_token: payment.body.payment_token,
        payment_method_type: "qr_mpm",
        provider: "sandbox",
      },
    );
    expect(confirmed.status).toBe(200);
    // The customer pays what the QR shows, at the provider, which notifies the gateway.
    const transaction = (confirmed.body.qr_content as string).split("/pay/")[1];
    const paid = await fetch(`${cluster.sandboxUrl}/sandbox/transactions/${transaction}/pay`, { method: "POST" });
    expect(paid.status).toBe(200);

    // Read from POS's database, not through the API: reading a pending QR payment would ask the gateway itself.
    const row = async () =>
      (await posDatabase.query("SELECT status FROM payments WHERE id = $1", [payment.body.id])).rows[0]?.status;
    await expect.poll(row, { timeout: 20_000, interval: 100 }).toBe("completed");
    // Applied from the event (a read would not record one).
    const applied = await posDatabase.query("SELECT count(*)::int AS n FROM processed_gateway_events");
    expect(applied.rows[0].n).toBeGreaterThan(0);
    const settled = await api("GET", `/bills/${bill.body.id}`);
    expect(settled.body).toMatchObject({ status: "paid", paid_amount: bill.body.total_amount, remaining_amount: 0 });
  });

  it("captures a card intent over REST; a worker delivers the signed webhook and a terminal on another edge process sees it", async () => {
    const put = await signed(cluster.baseUrl, demo.partner, "PUT", "/v1/api_key/webhook", {
      webhook_url: receiver.url,
    });
    expect(put.status).toBe(200);
    const created = await signed(cluster.baseUrl, demo.partner, "POST", "/v1/payment_intents", {
      amount: 4200,
      currency: "JPY",
      payment_method_types: ["credit_card"],
      merchant_ref_id: `cluster-${randomUUID()}`,
      merchant_store_id: demo.store.code,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const client = createClient({
      url: `${otherEdgeUrl.replace(/^http/, "ws")}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${await deviceToken(cluster.baseUrl, demo.device)}` },
    });
    try {
      const updates = client.iterate<{ paymentIntentUpdated: { id: string; status: string } }>({
        query: "subscription($id: String!) { paymentIntentUpdated(id: $id) { id status } }",
        variables: { id },
      });
      const first = await updates.next();
      expect(first.value).toMatchObject({ data: { paymentIntentUpdated: { id } } });
      expect(first.value.data.paymentIntentUpdated.status).not.toBe("succeeded");

      const captured = await signed(cluster.baseUrl, demo.partner, "POST", `/v1/payment_intents/${id}/capture`, {});
      expect(captured.status).toBe(200);

      const statuses: string[] = [];
      for await (const update of updates) {
        statuses.push(update.data!.paymentIntentUpdated.status);
      }
      expect(statuses.at(-1)).toBe("succeeded");
    } finally {
      await client.dispose();
    }

    let request = await receiver.next();
    while (JSON.parse(request.body).data.id !== id) request = await receiver.next();
    const event = new Webhook(demo.partner.webhook_secret).verify(request.body, request.headers as never) as any;
    expect(event).toMatchObject({
      type: "payment_intent.succeeded",
      data: { id, status: "succeeded", amount: 4200, currency: "JPY", store_id: demo.store.id },
    });
  });
});
