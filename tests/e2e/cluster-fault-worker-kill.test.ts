import { randomBytes } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { type MessageBus, natsBus } from "@pos-cloud/common/messaging";
import pg from "pg";
import { monotonicFactory } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedStorage } from "../support/databases";
import { natsUrl, onPostgres } from "../support/environment";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { spawnWorker, type WorkerProcess } from "../support/worker-process";

const EVENTS = 300;
/** The publisher's claim: at most this many rows per transaction. */
const BATCH = 100;

// Issue 13 (faults): a worker killed in the middle of a batch loses no outbox event; another worker publishes the
// rest, and NATS keeps one copy of each. The cluster suite only (PostgreSQL, NATS, worker processes).
describe.skipIf(!onPostgres)("a worker killed mid-batch", () => {
  const closers: (() => Promise<unknown>)[] = [];
  const namespace = `fault_${randomBytes(4).toString("hex")}`;
  /** How many times each event id reached the stream. */
  const onBus = new Map<string, number>();
  let payments: pg.Client;
  let proxies: TcpProxy[];
  let workers: WorkerProcess[];

  beforeAll(async () => {
    const storage = await isolatedStorage(["portal", "pos", "payments"]);
    closers.push(() => storage.drop());
    const server = new URL(natsUrl.split(",")[0]!);
    // The test's own view of the stream, straight to NATS: every event the workers put there.
    const observer: MessageBus = await natsBus({ url: natsUrl, namespace });
    closers.unshift(async () => {
      await observer.close();
      const nc = await connect({ servers: natsUrl });
      const jsm = await jetstreamManager(nc);
      for (const topic of ["events_internal", "webhooks_delivery"]) await jsm.streams.delete(`${namespace}_${topic}`);
      await nc.close();
    });
    await observer.listen("events.internal", (event) => {
      // The test's own events only: a worker's start records its sync partner's key (audit events) too.
      if (event.aggregate_id.startsWith("pi_fault_")) onBus.set(event.id, (onBus.get(event.id) ?? 0) + 1);
    });
    // Each worker reaches NATS through a proxy of its own, so the test can hold the stream's acks from it.
    proxies = await Promise.all(
      [0, 1].map(() => startTcpProxy({ host: server.hostname, port: Number(server.port || 4222) })),
    );
    closers.unshift(() => Promise.all(proxies.map((proxy) => proxy.close())));
    const shared = {
      DATABASE_URL_PORTAL: storage.urls.portal,
      DATABASE_URL_PAYMENTS: storage.urls.payments,
      DATABASE_URL_POS: storage.urls.pos,
      MASTER_KEY: randomBytes(32).toString("hex"),
      INTERNAL_TOKEN: randomBytes(32).toString("hex"),
      NATS_NAMESPACE: namespace,
      // Nothing listens there: the portal's sync to the gateway fails and retries, which this test does not need.
      GATEWAY_URL: "http://127.0.0.1:1",
      METRICS_PORT: "0",
      HOST: "127.0.0.1",
    };
    workers = proxies.map((proxy) => spawnWorker({ ...shared, NATS_URL: proxy.url("nats") }));
    closers.unshift(() => Promise.all(workers.map((worker) => worker.stop())));
    await Promise.all(workers.map((worker) => worker.running));
    payments = new pg.Client({ connectionString: storage.urls.payments });
    await payments.connect();
    closers.unshift(() => payments.end());
  }, 90_000);
  afterAll(async () => {
    for (const close of closers) await close();
  }, 30_000);

  // The test's own events only: the workers publish their own at start (audit records of the sync key, for one).
  const published = async () =>
    (
      await payments.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM outbox_events WHERE status = 'published' AND aggregate_id LIKE 'pi_fault_%'",
      )
    ).rows[0]!.n;

  it("publishes every event exactly once to the stream: the survivor takes over the dead worker's batch", async () => {
    // Both workers get their batch onto the stream but never hear NATS's acks, so neither can mark a row published.
    for (const proxy of proxies) proxy.holdReplies();
    const next = monotonicFactory();
    const ids = Array.from({ length: EVENTS }, () => next());
    await payments.query(
      `INSERT INTO outbox_events (id, event_type, aggregate_type, aggregate_id, payload)
       SELECT id, 'payment_intent.created', 'payment_intent', 'pi_fault_' || n, jsonb_build_object('n', n)
       FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n)`,
      [ids],
    );
    // One batch from each worker is on the stream, their transactions still open.
    await expect.poll(() => onBus.size, { timeout: 20_000, interval: 20 }).toBe(2 * BATCH);
    expect(await published()).toBe(0);

    const [doomed, survivor] = workers;
    await doomed!.kill();
    proxies[1]!.releaseReplies();

    // The survivor marks its batch, then claims the rest: the rows never claimed and the dead worker's, which
    // PostgreSQL released when its connection ended.
    await expect.poll(published, { timeout: 20_000, interval: 100 }).toBe(EVENTS);
    expect(survivor!.child.exitCode).toBeNull();
    await expect.poll(() => onBus.size, { timeout: 5000, interval: 20 }).toBe(EVENTS);
    expect([...onBus.keys()].sort()).toEqual([...ids].sort());
    // The survivor published the dead worker's 100 events again; the stream dropped the copies by their ids.
    expect([...onBus.values()].filter((count) => count !== 1)).toEqual([]);
  });
});
