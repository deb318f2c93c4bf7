import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import type { BusEvent, MessageBus } from "../../subgraphs/common/src/messaging/bus";

/** A promise and the functions that settle it, for waiting on what a handler sees. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The `n`th event, about intent `pi_<n>` unless another aggregate is named. */
export const busEvent = (n: number, aggregate_id = `pi_${n}`): BusEvent => ({
  id: `evt-${randomUUID()}`,
  event_type: "payment_intent.created",
  aggregate_type: "payment_intent",
  aggregate_id,
  payload: { n },
  created_at: new Date().toISOString(),
});

/** Collects events until `count` have arrived. */
function collector(count: number) {
  const seen: BusEvent[] = [];
  const done = deferred<BusEvent[]>();
  return {
    seen,
    done: done.promise,
    add(event: BusEvent) {
      seen.push(event);
      if (seen.length === count) done.resolve(seen);
    },
  };
}

/** What every bus driver keeps (bus.ts); each driver's test runs it against its own bus. */
export function busBehaviour(open: () => Promise<MessageBus>) {
  let bus: MessageBus;
  beforeEach(async () => {
    bus = await open();
  });
  afterEach(async () => {
    await bus.close();
  });

  it("gives a group each aggregate's events in publish order", async () => {
    // Five intents' events, interleaved as intents move at once.
    const events = Array.from({ length: 40 }, (_, n) => busEvent(n, `pi_${n % 5}`));
    const received = collector(events.length);
    await bus.consume("events.internal", "ordered", async (event) => received.add(event));
    for (const event of events) await bus.publish("events.internal", event);
    const ofIntent = (all: BusEvent[], intent: string) =>
      all.filter((event) => event.aggregate_id === intent).map((event) => event.id);
    const seen = await received.done;
    for (let intent = 0; intent < 5; intent++) {
      expect(ofIntent(seen, `pi_${intent}`)).toEqual(ofIntent(events, `pi_${intent}`));
    }
  });

  it("lets a stopped consumer finish the event it is handling before its stop resolves (a shutdown closes storage next)", async () => {
    const started = deferred();
    const release = deferred();
    const finished: string[] = [];
    const subscription = await bus.consume("events.internal", "stopping", async (event) => {
      started.resolve();
      await release.promise;
      finished.push(event.id);
    });
    const event = busEvent(1);
    await bus.publish("events.internal", event);
    await started.promise;
    let stopped = false;
    const stopping = subscription.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release.resolve();
    await stopping;
    expect(finished).toEqual([event.id]);
  });

  it("gives an event again after a failed handler, before its aggregate's next one", async () => {
    const [first, second] = [busEvent(1, "pi_1"), busEvent(2, "pi_1")];
    const received = collector(3);
    let failed = false;
    await bus.consume("webhooks.delivery", "retrying", async (event) => {
      received.add(event);
      if (event.id === first.id && !failed) {
        failed = true;
        throw new Error("the receiver is down");
      }
    });
    await bus.publish("webhooks.delivery", first);
    await bus.publish("webhooks.delivery", second);
    expect((await received.done).map((event) => event.id)).toEqual([first.id, first.id, second.id]);
  });

  it("shares a group's events among its members, each event to one of them", async () => {
    const events = Array.from({ length: 10 }, (_, n) => busEvent(n));
    const received = collector(events.length);
    const byMember = new Map<string, string[]>();
    for (const member of ["a", "b"]) {
      byMember.set(member, []);
      await bus.consume("events.internal", "shared", async (event) => {
        byMember.get(member)!.push(event.id);
        received.add(event);
        // Hand the turn over, as a real handler that does I/O does.
        await new Promise((resolve) => setTimeout(resolve, 5));
      });
    }
    for (const event of events) await bus.publish("events.internal", event);
    await received.done;
    const all = [...byMember.get("a")!, ...byMember.get("b")!];
    expect(all.sort()).toEqual(events.map((event) => event.id).sort());
    expect(byMember.get("a")!.length).toBeGreaterThan(0);
    expect(byMember.get("b")!.length).toBeGreaterThan(0);
  });

  it("gives every listener every event, and every group its own copy", async () => {
    const events = [busEvent(1), busEvent(2), busEvent(3)];
    const listeners = [collector(3), collector(3)];
    const group = collector(3);
    for (const listener of listeners) await bus.listen("events.internal", (event) => listener.add(event));
    await bus.consume("events.internal", "alongside", async (event) => group.add(event));
    for (const event of events) await bus.publish("events.internal", event);
    const ids = events.map((event) => event.id);
    for (const listener of listeners) expect((await listener.done).map((event) => event.id)).toEqual(ids);
    expect((await group.done).map((event) => event.id)).toEqual(ids);
  });

  it("keeps the topics apart", async () => {
    const internal = collector(1);
    const webhooks = collector(1);
    await bus.consume("events.internal", "internal-only", async (event) => internal.add(event));
    await bus.consume("webhooks.delivery", "webhooks-only", async (event) => webhooks.add(event));
    const [a, b] = [busEvent(1), busEvent(2)];
    await bus.publish("webhooks.delivery", b);
    await bus.publish("events.internal", a);
    expect((await internal.done).map((event) => event.id)).toEqual([a.id]);
    expect((await webhooks.done).map((event) => event.id)).toEqual([b.id]);
  });

  it("answers a ping and says it is connected while open, neither once closed (readiness, the outbox)", async () => {
    await expect(bus.ping()).resolves.toBeUndefined();
    const other = await open();
    await other.ping();
    expect(other.connected()).toBe(true);
    await other.close();
    await expect(other.ping()).rejects.toThrow(/closed/);
    expect(other.connected()).toBe(false);
  });

  it("stops giving events to a stopped listener", async () => {
    const kept = collector(2);
    const stopped: BusEvent[] = [];
    const subscription = await bus.listen("events.internal", (event) => stopped.push(event));
    await bus.listen("events.internal", (event) => kept.add(event));
    await bus.publish("events.internal", busEvent(1));
    await vi.waitFor(() => expect(stopped).not.toHaveLength(0));
    await subscription.stop();
    await bus.publish("events.internal", busEvent(2));
    await kept.done;
    expect(stopped).toHaveLength(1);
  });
}
