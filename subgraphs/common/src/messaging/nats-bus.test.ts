import { randomUUID } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, describe, expect, it } from "vitest";
import { busBehaviour, busEvent, deferred } from "../../../../tests/support/bus-behaviour";
import { natsUrl } from "../../../../tests/support/environment";
import { startTcpProxy } from "../../../../tests/support/tcp-proxy";
import type { BusEvent } from "./bus";
import { natsBus } from "./nats-bus";

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
});
