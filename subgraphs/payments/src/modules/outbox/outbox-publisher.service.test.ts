import { randomBytes, randomUUID } from "node:crypto";
import { type Caller, newUlid } from "@pos-cloud/common";
import { startJobs } from "@pos-cloud/common/jobs";
import type { BusEvent, MessageBus, Topic } from "@pos-cloud/common/messaging";
import type { Database } from "@pos-cloud/common/storage";
import { retryPolicies } from "@pos-cloud/common/tasks";
import { isolatedStorage } from "@pos-cloud/test-support/databases";
import { onPostgres } from "@pos-cloud/test-support/environment";
import { movableClock } from "@pos-cloud/test-support/payments";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openPayments, type PaymentsDeps } from "../../index";
import { outboxRepository } from "./outbox.repository";
import { outboxPublisher, RETENTION_MS } from "./outbox-publisher.service";

const operator: Caller = { type: "service", id: "test", scopes: [] };

/** A bus that records what it is given and refuses what `refuses` says. */
function recordingBus(refuses: (event: BusEvent) => boolean = () => false) {
  const published: { topic: Topic; event: BusEvent }[] = [];
  const bus: MessageBus = {
    driver: "memory",
    async publish(topic, event) {
      if (refuses(event)) throw new Error("the bus is unreachable");
      published.push({ topic, event });
    },
    consume: async () => ({ stop: async () => {} }),
    listen: async () => ({ stop: async () => {} }),
    ping: async () => {},
    connected: () => true,
    close: async () => {},
  };
  const ids = (topic: Topic = "events.internal") =>
    published.filter((each) => each.topic === topic).map((each) => each.event.id);
  return { bus, published, ids };
}

describe("the outbox publisher", () => {
  let storage: Awaited<ReturnType<typeof isolatedStorage<"payments">>>;
  let deps: PaymentsDeps;
  const clock = movableClock();

  beforeEach(async () => {
    storage = await isolatedStorage(["payments"]);
    deps = await openPayments({ url: storage.urls.payments, masterKey: randomBytes(32), clock });
  });
  afterEach(async () => {
    await deps.close();
    await storage.drop();
  });

  /** Appends an outbox row, as a module's transaction would. */
  const append = async (event_type: string, aggregate_id = `pi_${randomUUID()}`) =>
    (
      await deps.prisma.outboxEvent.create({
        data: {
          id: newUlid(clock().getTime()),
          event_type,
          aggregate_id,
          payload: { aggregate_id },
          created_at: clock(),
        },
      })
    ).id;

  const rowOf = (id: string) => deps.prisma.outboxEvent.findUniqueOrThrow({ where: { id } });

  /** Runs batches until one claims nothing. */
  async function drain(publisher: ReturnType<typeof outboxPublisher>) {
    while ((await publisher.publishBatch()).claimed > 0);
  }

  it("sends every event to the internal topic and only an intent's terminal states to partners", async () => {
    const recorder = recordingBus();
    const ids = {
      created: await append("payment_intent.created"),
      succeeded: await append("payment_intent.succeeded"),
      failed: await append("payment_intent.failed"),
      cancelled: await append("payment_intent.cancelled"),
      webhook: await append("provider_webhook.received", `sandbox:${randomUUID()}`),
      late: await append("late_payment.received"),
    };
    await drain(deps.outboxPublisher(recorder.bus));
    expect(recorder.ids().sort()).toEqual(Object.values(ids).sort());
    expect(recorder.ids("webhooks.delivery").sort()).toEqual([ids.succeeded, ids.failed, ids.cancelled].sort());
    const row = await rowOf(ids.created);
    expect(row).toMatchObject({ status: "published", retry_count: 0 });
    expect(row.published_at!.getTime()).toBeGreaterThanOrEqual(row.created_at.getTime());
    const sent = recorder.published.find((each) => each.event.id === ids.created)!.event;
    expect(sent).toMatchObject({ event_type: "payment_intent.created", aggregate_type: "payment_intent" });
    expect(sent.payload).toEqual({ aggregate_id: row.aggregate_id });
  });

  it("publishes an intent's events in the order they were written, one per batch", async () => {
    const recorder = recordingBus();
    const intent = `pi_${randomUUID()}`;
    const written = [
      await append("payment_intent.created", intent),
      await append("payment_intent.requires_action", intent),
      await append("payment_intent.succeeded", intent),
    ];
    const other = await append("payment_intent.created");
    const publisher = deps.outboxPublisher(recorder.bus);
    expect((await publisher.publishBatch()).published.sort()).toEqual([written[0], other].sort());
    await drain(publisher);
    expect(recorder.ids().filter((id) => written.includes(id))).toEqual(written);
  });

  it("tries a failing event again later, holds its intent's later events back, fails it at the fifth attempt", async () => {
    const intent = `pi_${randomUUID()}`;
    const first = await append("payment_intent.created", intent);
    const second = await append("payment_intent.succeeded", intent);
    const refusing = recordingBus((event) => event.id === first);
    const publisher = deps.outboxPublisher(refusing.bus);
    const waits = retryPolicies.event_outbox.delaysMs;
    const lastAttempt = waits.length + 1;
    for (let attempt = 1; attempt <= lastAttempt; attempt++) {
      expect((await publisher.publishBatch()).failures.map((failure) => failure.id)).toEqual([first]);
      const row = await rowOf(first);
      expect(row).toMatchObject({ retry_count: attempt, last_error: "the bus is unreachable" });
      if (attempt < lastAttempt) {
        expect(row.status).toBe("pending");
        // Not before its time: a batch now does not try it again.
        expect((await publisher.publishBatch()).claimed).toBe(0);
        clock.advance(waits[attempt - 1]!);
      }
    }
    expect(await rowOf(first)).toMatchObject({ status: "failed", retry_count: lastAttempt });
    expect((await rowOf(second)).status).toBe("pending");
    expect((await publisher.publishBatch()).claimed).toBe(0);
    expect((await deps.outbox.failedEvents(operator)).map((row) => row.id)).toEqual([first]);

    expect(await deps.outbox.replay(operator, { id: first })).toEqual({ replayed: 1, ids: [first] });
    expect(await rowOf(first)).toMatchObject({ status: "pending", retry_count: 0 });
    const working = recordingBus();
    await drain(deps.outboxPublisher(working.bus));
    expect(working.ids()).toEqual([first, second]);
    expect(working.ids("webhooks.delivery")).toEqual([second]);
  });

  it("replays one failed event or all of them, for operators only, and says what was wrong", async () => {
    const a = await append("payment_intent.created");
    const b = await append("payment_intent.created");
    await deps.prisma.outboxEvent.updateMany({ where: { id: { in: [a, b] } }, data: { status: "failed" } });
    const partner: Caller = { type: "partner", id: "1", scopes: [] };
    await expect(deps.outbox.replay(partner, { all_failed: true })).rejects.toMatchObject({ code: "forbidden" });
    await expect(deps.outbox.replay(operator, {})).rejects.toMatchObject({
      code: "invalid_request",
      details: { field: "id", constraint: "one_of" },
    });
    await expect(deps.outbox.replay(operator, { id: a, all_failed: true })).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(deps.outbox.replay(operator, { id: "01NOTANEVENT" })).rejects.toMatchObject({ code: "not_found" });
    expect((await deps.outbox.replay(operator, { all_failed: true })).ids.sort()).toEqual([a, b].sort());
    await expect(deps.outbox.replay(operator, { id: a })).rejects.toMatchObject({ code: "not_found" });
  });

  it("never publishes a row twice with two publishers at once, nor loses one, nor reorders an intent", async () => {
    const intents = Array.from({ length: 30 }, () => `pi_${randomUUID()}`);
    const written: string[] = [];
    for (const step of ["created", "requires_action", "succeeded"]) {
      for (const intent of intents) written.push(await append(`payment_intent.${step}`, intent));
    }
    for (let n = 0; n < 150; n++) written.push(await append("payment_intent.created"));
    // On PostgreSQL the second publisher has its own connections, as another instance would.
    const second = storage.urls.payments
      ? await openPayments({ url: storage.urls.payments, masterKey: randomBytes(32), clock })
      : deps;
    try {
      const recorder = recordingBus();
      await Promise.all([drain(deps.outboxPublisher(recorder.bus)), drain(second.outboxPublisher(recorder.bus))]);
      const ids = recorder.ids();
      expect(ids.length).toBe(written.length);
      expect(new Set(ids).size).toBe(written.length);
      const byIntent = new Map(intents.map((intent) => [intent, [] as string[]]));
      for (const id of ids)
        byIntent.get(recorder.published.find((each) => each.event.id === id)!.event.aggregate_id)?.push(id);
      for (const [intent, seen] of byIntent) {
        expect(seen).toEqual(written.filter((_, index) => index < 90 && intents[index % 30] === intent));
      }
    } finally {
      if (second !== deps) await second.close();
    }
  });

  it("loses nothing when the publisher dies before its batch commits: the next one publishes it all again", async () => {
    const written = [await append("payment_intent.created"), await append("payment_intent.succeeded")];
    const recorder = recordingBus();
    const dying: Database = {
      ...deps.db,
      transaction: (work) =>
        deps.db.transaction(async (tx) => {
          await work(tx);
          throw new Error("killed before the commit");
        }),
    };
    const killed = outboxPublisher({ outbox: outboxRepository(dying), bus: recorder.bus, clock });
    await expect(killed.publishBatch()).rejects.toThrow("killed before the commit");
    expect(recorder.ids().sort()).toEqual([...written].sort());
    expect((await rowOf(written[0]!)).status).toBe("pending");

    await drain(deps.outboxPublisher(recorder.bus));
    // At least once: the bus saw each event twice, and consumers deduplicate by its id.
    expect(recorder.ids().sort()).toEqual([...written, ...written].sort());
    for (const id of written) expect((await rowOf(id)).status).toBe("published");
  });

  it.runIf(onPostgres)(
    "loses nothing when a publisher's connection is killed while its batch waits on the bus",
    async () => {
      const written = await Promise.all(Array.from({ length: 5 }, () => append("payment_intent.created")));
      const instance = await openPayments({ url: storage.urls.payments, masterKey: randomBytes(32), clock });
      let release = (_error: Error) => {};
      // The bus takes two events, then hangs on the rest (until the test is done with them).
      const stuck = new Promise<void>((_, reject) => {
        release = reject;
      });
      const hung = new Promise<void>((resolve) => {
        let taken = 0;
        const hanging: MessageBus = {
          ...recordingBus().bus,
          publish: () => {
            if (++taken <= 2) return Promise.resolve();
            resolve();
            return stuck;
          },
        };
        void instance
          .outboxPublisher(hanging)
          .publishBatch()
          .catch(() => {});
      });
      await hung;
      // What an instance's crash does to its session: the server ends it and rolls its transaction back.
      const [killed] = await deps.db.query<{ pid: number; terminated: boolean }>(
        `SELECT pid, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity
       WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()`,
      );
      expect(killed?.terminated).toBe(true);
      // pg_terminate_backend only signals: the batch's row locks go when the backend has ended.
      await expect
        .poll(async () => (await deps.db.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [killed!.pid])).length)
        .toBe(0);
      const recorder = recordingBus();
      await drain(deps.outboxPublisher(recorder.bus));
      expect(recorder.ids().sort()).toEqual([...written].sort());
      for (const id of written) expect((await rowOf(id)).status).toBe("published");
      release(new Error("the instance is gone"));
      await instance.close();
    },
  );

  it("deletes published events after seven days and keeps failed ones", async () => {
    const published = await append("payment_intent.created");
    const failed = await append("payment_intent.created");
    await deps.prisma.outboxEvent.update({ where: { id: failed }, data: { status: "failed" } });
    const publisher = deps.outboxPublisher(recordingBus().bus);
    await drain(publisher);
    const recent = await append("payment_intent.created");
    clock.advance(RETENTION_MS - 1000);
    await drain(publisher);
    expect(await publisher.cleanup()).toBe(0);
    clock.advance(2000);
    expect(await publisher.cleanup()).toBe(1);
    expect(await deps.prisma.outboxEvent.findUnique({ where: { id: published } })).toBeNull();
    expect((await rowOf(failed)).status).toBe("failed");
    expect((await rowOf(recent)).status).toBe("published");
  });

  it("publishes a committed row at once when running, without waiting for its poll", async () => {
    const recorder = recordingBus();
    const running = await startJobs(
      deps.outboxPublisher(recorder.bus).jobs({ name: "payments", pollIntervalMs: 60_000 }),
    );
    try {
      const before = await append("payment_intent.created");
      await vi.waitFor(() => expect(recorder.ids()).toContain(before), { timeout: 2000, interval: 10 });
      const after = await append("payment_intent.created");
      await vi.waitFor(() => expect(recorder.ids()).toContain(after), { timeout: 2000, interval: 10 });
    } finally {
      await running.stop();
    }
  });

  it("claims nothing while the bus is disconnected, so an outage spends no attempt; publishes when it is back", async () => {
    const recorder = recordingBus();
    let away = true;
    let checks = 0;
    recorder.bus.connected = () => {
      checks++;
      return !away;
    };
    const running = await startJobs(deps.outboxPublisher(recorder.bus).jobs({ name: "payments", pollIntervalMs: 20 }));
    try {
      const waiting = await append("payment_intent.created");
      const cycles = checks;
      await vi.waitFor(() => expect(checks - cycles).toBeGreaterThanOrEqual(3), { timeout: 5000, interval: 10 });
      expect(await rowOf(waiting)).toMatchObject({ status: "pending", retry_count: 0 });
      away = false;
      // Marked in the claim's transaction, which commits after the bus took the event.
      const published = async () => expect(await rowOf(waiting)).toMatchObject({ status: "published", retry_count: 0 });
      await vi.waitFor(published, { timeout: 5000, interval: 10 });
      expect(recorder.ids()).toContain(waiting);
    } finally {
      await running.stop();
    }
  });
});
