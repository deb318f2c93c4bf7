import { randomBytes } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { startJobs } from "@pos-cloud/common/jobs";
import { type MessageBus, natsBus } from "@pos-cloud/common/messaging";
import type { PaymentsDeps } from "@pos-cloud/payments";
import { monotonicFactory } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { natsUrl, onPostgres } from "../support/environment";
import { movableClock, openIsolatedPayments } from "../support/payments";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";

// Issue 13 (faults): NATS unreachable for a while. The outbox keeps the events pending without spending their
// attempts (the publisher claims nothing while the bus is disconnected), and publishes each once NATS is back; the bus reconnects by itself. The cluster suite
// only: the publisher on PostgreSQL, NATS reached through a proxy this test cuts (the machine's NATS stays up for
// the other tests).
describe.skipIf(!onPostgres)("the outbox publisher while NATS is unreachable", () => {
  const closers: (() => Promise<unknown>)[] = [];
  const namespace = `fault_${randomBytes(4).toString("hex")}`;
  const clock = movableClock();
  /** How many times each event id reached the stream, seen straight from NATS. */
  const onBus = new Map<string, number>();
  const next = monotonicFactory();
  let proxy: TcpProxy;
  let bus: MessageBus;
  /** How many times the publisher asked the bus whether it is connected: once per cycle. */
  let checks = 0;
  let payments: PaymentsDeps;

  beforeAll(async () => {
    const server = new URL(natsUrl.split(",")[0]!);
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 4222) });
    closers.push(() => proxy.close());
    const observer = await natsBus({ url: natsUrl, namespace });
    closers.unshift(async () => {
      await observer.close();
      const nc = await connect({ servers: natsUrl });
      const jsm = await jetstreamManager(nc);
      for (const topic of ["events_internal", "webhooks_delivery"]) await jsm.streams.delete(`${namespace}_${topic}`);
      await nc.close();
    });
    await observer.listen("events.internal", (event) => onBus.set(event.id, (onBus.get(event.id) ?? 0) + 1));
    payments = await openIsolatedPayments(clock);
    closers.unshift(() => payments.close());
    bus = await natsBus({ url: proxy.url("nats"), namespace });
    closers.unshift(() => bus.close());
    const counted: MessageBus = Object.assign(Object.create(bus), {
      connected: () => {
        checks++;
        return bus.connected();
      },
    });
    const publisher = await startJobs(
      payments.outboxPublisher(counted).jobs({ name: "payments", pollIntervalMs: 100 }),
    );
    closers.unshift(() => publisher.stop());
  });
  afterAll(async () => {
    for (const close of closers) await close();
  }, 30_000);

  /** Appends outbox rows as a committed intent change does (the database notifies the publisher). */
  async function append(count: number) {
    const ids = Array.from({ length: count }, () => next());
    await payments.db.query(
      `INSERT INTO outbox_events (id, event_type, aggregate_type, aggregate_id, payload)
       SELECT id, 'payment_intent.created', 'payment_intent', 'pi_outage_' || id, '{}'::jsonb
       FROM unnest($1::text[]) AS t(id)`,
      [ids],
    );
    return ids;
  }

  const rows = (ids: string[]) =>
    payments.db.query<{ id: string; status: string; retry_count: number }>(
      "SELECT id, status, retry_count FROM outbox_events WHERE id = ANY($1::text[]) ORDER BY id",
      [ids],
    );

  it("keeps events pending while NATS is away and publishes each exactly once when it returns", async () => {
    const before = await append(1);
    await expect.poll(() => onBus.has(before[0]!), { timeout: 10_000 }).toBe(true);

    proxy.cut();
    await expect.poll(() => bus.connected(), { timeout: 5000, interval: 20 }).toBe(false);
    await expect(bus.ping()).rejects.toThrow();
    const during = await append(10);
    // Several of the publisher's cycles pass with the bus away: every row is still pending, no attempt spent.
    const cycles = checks;
    await expect.poll(() => checks - cycles, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(3);
    expect(await rows(during)).toEqual(during.map((id) => ({ id, status: "pending", retry_count: 0 })));

    proxy.restore();
    // The bus reconnects by itself; then the rows' next try is due.
    await expect
      .poll(
        () =>
          bus.ping().then(
            () => "answered",
            () => "down",
          ),
        { timeout: 15_000 },
      )
      .toBe("answered");
    await expect
      .poll(async () => (await rows(during)).every((row) => row.status === "published"), {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(true);
    await expect.poll(() => during.every((id) => onBus.has(id)), { timeout: 5000 }).toBe(true);
    expect([...during, ...before].map((id) => onBus.get(id))).toEqual([...during, ...before].map(() => 1));
  });
});
