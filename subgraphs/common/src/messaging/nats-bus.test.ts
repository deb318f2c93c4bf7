import { randomUUID } from "node:crypto";
import { AckPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { busBehaviour, busEvent, deferred } from "@pos-cloud/test-support/bus-behaviour";
import { natsUrl } from "@pos-cloud/test-support/environment";
import { startTcpProxy } from "@pos-cloud/test-support/tcp-proxy";
import { afterAll, describe, expect, it } from "vitest";
import type { BusEvent } from "./bus";
import { natsBus, partitionOf } from "./nats-bus";

const reachable = await connect({ servers: natsUrl, timeout: 1000, reconnect: false }).then(
  async (nc) => {
    await nc.close();
    return true;
  },
  () => false,
);

describe.runIf(reachable)(`the NATS JetStream bus at ${natsUrl}`, () => {
  const namespaces: string[] = [];
  const open = (namespace = `test_${randomUUID().replace(/-/g, "")}`) => {
    namespaces.push(namespace);
    return natsBus({ url: natsUrl, namespace });
  };
  afterAll(async () => {
    const nc = await connect({ servers: natsUrl });
    const jsm = await jetstreamManager(nc);
    for (const namespace of new Set(namespaces)) {
      for (const topic of ["events_internal", "webhooks_delivery"]) await jsm.streams.delete(`${namespace}_${topic}`);
    }
    await nc.close();
  });

  busBehaviour(() => open());

  it("keeps a group's events while none of its members runs", async () => {
    const namespace = `test_${randomUUID().replace(/-/g, "")}`;
    const first = await open(namespace);
    const subscription = await first.consume("webhooks.delivery", "dispatcher", async () => {});
    await subscription.stop();
    await first.close();
    const second = await open(namespace);
    const event = busEvent(1);
    await second.publish("webhooks.delivery", event);
    await second.close();

    const third = await open(namespace);
    const received = deferred<BusEvent>();
    await third.consume("webhooks.delivery", "dispatcher", async (each) => received.resolve(each));
    expect((await received.promise).id).toBe(event.id);
    await third.close();
  });

  it("fails its ping while NATS is unreachable, and reconnects by itself once it is back", async () => {
    const server = new URL(natsUrl.split(",")[0]!);
    const proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 4222) });
    const namespace = `test_${randomUUID().replace(/-/g, "")}`;
    namespaces.push(namespace);
    const bus = await natsBus({ url: proxy.url("nats"), namespace });
    try {
      await bus.ping();
      proxy.cut();
      await expect(bus.ping()).rejects.toThrow();
      proxy.restore();
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
      const received = deferred<BusEvent>();
      const event = busEvent(1);
      await bus.consume("events.internal", "after-outage", async (each) => received.resolve(each));
      await bus.publish("events.internal", event);
      expect((await received.promise).id).toBe(event.id);
    } finally {
      await bus.close();
      await proxy.close();
    }
  });

  it("stores an event published twice (a publisher's retry) once", async () => {
    const bus = await open();
    const event = busEvent(1);
    const later = busEvent(2);
    const seen: string[] = [];
    const done = deferred();
    await bus.consume("events.internal", "dedup", async (each) => {
      seen.push(each.id);
      if (each.id === later.id) done.resolve();
    });
    await bus.publish("events.internal", event);
    await bus.publish("events.internal", event);
    await bus.publish("events.internal", later);
    await done.promise;
    expect(seen).toEqual([event.id, later.id]);
    await bus.close();
  });

  /** Intents whose events go to different partitions: `count` of them. */
  const apart = (count: number) => {
    const intents = new Map<number, string>();
    for (let n = 0; intents.size < count; n++) {
      const id = `pi_apart_${n}`;
      const partition = partitionOf({ aggregate_type: "payment_intent", aggregate_id: id });
      if (!intents.has(partition)) intents.set(partition, id);
    }
    return [...intents.values()];
  };
  const idsOf = (events: BusEvent[], intent: string) =>
    events.filter((event) => event.aggregate_id === intent).map((event) => event.id);

  it("handles other intents' events while one is in hand, each intent's in order, across members", async () => {
    const namespace = `test_${randomUUID().replace(/-/g, "")}`;
    const [members, publisher] = [[await open(namespace), await open(namespace)], await open(namespace)];
    const [slow, ...others] = apart(4);
    const events = Array.from({ length: 40 }, (_, n) => busEvent(n, [slow!, ...others][n % 4]));
    const seen: BusEvent[] = [];
    const othersDone = deferred();
    const all = deferred();
    const handle = async (event: BusEvent) => {
      // The slow intent's first event is held until every other intent's events were handled: one at a time, the
      // group would never get to them.
      if (event.id === events[0]!.id) await othersDone.promise;
      seen.push(event);
      if (others.every((intent) => idsOf(seen, intent).length === 10)) othersDone.resolve();
      if (seen.length === events.length) all.resolve();
    };
    try {
      for (const member of members) await member.consume("events.internal", "partitioned", handle);
      await Promise.all(events.map((event) => publisher.publish("events.internal", event)));
      await all.promise;
      for (const intent of [slow!, ...others]) expect(idsOf(seen, intent)).toEqual(idsOf(events, intent));
      expect(seen.at(-1)!.aggregate_id).toBe(slow);
    } finally {
      await Promise.all([...members, publisher].map((bus) => bus.close()));
    }
  });

  it("loses and repeats no event when the group's member is replaced while events arrive", async () => {
    const namespace = `test_${randomUUID().replace(/-/g, "")}`;
    const publisher = await open(namespace);
    const intents = apart(8);
    const events = Array.from({ length: 400 }, (_, n) => busEvent(n, intents[n % intents.length]));
    const seen: BusEvent[] = [];
    const half = deferred();
    const all = deferred();
    const handle = async (event: BusEvent) => {
      seen.push(event);
      if (seen.length === events.length / 2) half.resolve();
      if (seen.length === events.length) all.resolve();
    };
    // An event the stopped member had pulled but not handled comes back after `ack_wait` (30 s) at the latest.
    const first = await open(namespace);
    await first.consume("events.internal", "restarted", handle);
    const publishing = (async () => {
      for (const event of events) await publisher.publish("events.internal", event);
    })();
    await half.promise;
    await first.close();
    const second = await open(namespace);
    try {
      await second.consume("events.internal", "restarted", handle);
      await publishing;
      await all.promise;
      expect(new Set(seen.map((event) => event.id)).size).toBe(events.length);
      expect(seen).toHaveLength(events.length);
      for (const intent of intents) expect(idsOf(seen, intent)).toEqual(idsOf(events, intent));
    } finally {
      await Promise.all([second.close(), publisher.close()]);
    }
  }, 60_000);

  it("carries on a group that ran before partitions: its durable's events, then the partitioned ones, once each", async () => {
    const namespace = `test_${randomUUID().replace(/-/g, "")}`;
    const stream = `${namespace}_events_internal`;
    const subject = `${namespace}.events.internal`;
    // The version before partitions: its stream on the bare subject, the group's durable, an event it left pending.
    const nc = await connect({ servers: natsUrl });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [subject] });
    await jsm.consumers.add(stream, { durable_name: "upgraded", ack_policy: AckPolicy.Explicit, max_ack_pending: 1 });
    const left = busEvent(1);
    await jetstream(nc).publish(subject, JSON.stringify(left), { msgID: left.id });
    const bus = await open(namespace);
    const late = busEvent(2);
    try {
      // An old publisher's event while the new version runs, and a new one's.
      const seen: string[] = [];
      const all = deferred();
      await bus.consume("events.internal", "upgraded", async (event) => {
        seen.push(event.id);
        if (seen.length === 3) all.resolve();
      });
      await jetstream(nc).publish(subject, JSON.stringify(late), { msgID: late.id });
      const fresh = busEvent(3);
      await bus.publish("events.internal", fresh);
      await all.promise;
      expect(seen.sort()).toEqual([left.id, late.id, fresh.id].sort());
      // Nothing more arrives: the old durable acknowledged the partitioned event without handling it.
      await expect.poll(async () => (await jsm.consumers.info(stream, "upgraded")).num_pending).toBe(0);
      expect(seen).toHaveLength(3);
    } finally {
      await bus.close();
      await nc.close();
    }
  });
});
