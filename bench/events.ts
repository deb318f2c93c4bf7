// Issue 10's events benchmark. Drain: 10,000 pending outbox rows inserted directly, published by 4 publishers on
// PostgreSQL (or one on PGlite) to the memory bus or NATS; counted at the publisher and at a consumer. Notification
// (`./notification`): 200 graphql-ws clients on the embedded platform, each following one intent that the sandbox
// provider's webhook makes succeed.
import { randomBytes, randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { startJobs } from "@pos-cloud/common/jobs";
import { type BusEvent, type MessageBus, memoryBus, natsBus } from "@pos-cloud/common/messaging";
import { openPayments, type PaymentsDeps } from "@pos-cloud/payments";
import pg from "pg";
import { ulid } from "ulid";
import { cpuSince } from "./cpu";
import { benchNotification } from "./notification";
import type { BenchPlatform } from "./platform";
import { requireClean, type Scale } from "./scale";

/** An intent's life as its events tell it: four events each, in this order. */
const STEPS = ["created", "requires_action", "processing", "succeeded"] as const;
const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

/** The payload `intentEventRow` writes: the intent as it stands after the step, and the event's metadata. */
export function intentPayload(id: string, step: (typeof STEPS)[number], at: Date) {
  const done = step === "succeeded";
  return {
    payment_intent: {
      id,
      merchant_id: 1,
      store_id: 1,
      client_partner_id: 1,
      merchant_ref_id: `order-${id.slice(-10)}`,
      merchant_store_id: "1",
      merchant_terminal_id: "T-0001",
      order_id: null,
      amount: 1500,
      currency: "JPY",
      payment_method_types: ["qr_mpm"],
      payment_method_type: step === "created" ? null : "qr_mpm",
      processing_mode: "pgw_processed",
      status: step,
      provider_name: step === "created" ? null : "sandbox",
      provider_transaction_id: step === "created" ? null : `sbx_${id.slice(3)}`,
      failure_code: null,
      failure_message: null,
      description: "Lunch set",
      metadata: { table: "12" },
      captured_at: done ? at.toISOString() : null,
      created_at: at.toISOString(),
      updated_at: at.toISOString(),
      expires_at: new Date(at.getTime() + 30 * 60_000).toISOString(),
      next_poll_at: at.toISOString(),
      poll_attempts: 0,
    },
    metadata: { client_partner_id: 1, occurred_at: at.toISOString() },
  };
}

/** `events / 4` intents' 4 events each, written step by step as intents move in parallel; per intent, ids in order. */
async function insertPending(db: PaymentsDeps["db"], events: number) {
  const intents = Array.from({ length: events / STEPS.length }, () => `pi_${ulid()}`);
  const written = new Map(intents.map((id) => [id, [] as string[]]));
  for (const step of STEPS) {
    const at = new Date();
    const ids = intents.map(() => ulid());
    for (const [n, intent] of intents.entries()) written.get(intent)!.push(ids[n]!);
    await db.query(
      `INSERT INTO outbox_events (id, event_type, aggregate_type, aggregate_id, payload, created_at)
       SELECT e.id, $2, 'payment_intent', e.aggregate_id, e.payload, $3
       FROM unnest($1::text[], $4::text[], $5::jsonb[]) WITH ORDINALITY AS e(id, aggregate_id, payload, n) ORDER BY e.n`,
      [ids, `payment_intent.${step}`, at, intents, intents.map((id) => JSON.stringify(intentPayload(id, step, at)))],
    );
  }
  return written;
}

/** Every publish the publishers make, by event id, once the bus took it; `onAll` when all `events` were taken. */
function countingBus(bus: MessageBus, published: Map<string, number>, events: number, onAll: () => void): MessageBus {
  return {
    ...bus,
    async publish(topic, event) {
      await bus.publish(topic, event);
      if (topic !== "events.internal") return;
      published.set(event.id, (published.get(event.id) ?? 0) + 1);
      if (published.size === events) onAll();
    },
  };
}

export interface DrainFigures {
  storage: "postgres" | "pglite";
  bus: "memory" | "nats";
  publishers: number;
  /** Members of the consumer group, each on a bus connection of its own. */
  consumers: number;
  events: number;
  seconds: number;
  events_per_second: number;
  /** Until the bus had taken every event, before any consumer got them all. */
  published_seconds: number;
  duplicates_at_publisher: number;
  duplicates_at_consumer: number;
  lost: number;
  order_violations: number;
  /** CPU seconds of the drain: the bench's process (publishers and consumers), and the NATS server's with NATS_PID. */
  bench_cpu_s: number;
  nats_cpu_s?: number;
}

async function freshDatabase(base: string) {
  const name = `pos_cloud_bench_events_${randomUUID().replace(/-/g, "").slice(0, 10)}`;
  const admin = new pg.Client({ connectionString: `${base}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: `${base}/${name}`,
    async drop() {
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** NATS answers at `url`, or the run without it is reported as such. */
async function natsReachable(url: string) {
  try {
    await (await connect({ servers: url.split(","), timeout: 1000 })).close();
    return true;
  } catch {
    return false;
  }
}

async function dropNatsStreams(url: string, namespace: string) {
  const nc = await connect({ servers: url.split(",") });
  const jsm = await jetstreamManager(nc);
  for (const topic of ["events.internal", "webhooks.delivery"]) {
    await jsm.streams.delete(`${namespace}.${topic}`.replace(/\W/g, "_")).catch(() => undefined);
  }
  await nc.close();
}

/**
 * The drain of one storage and bus: pending rows first, then `publishers` publishers started as instances start them
 * (each its own connections and bus client), timed until a consumer group of `consumers` members (on NATS each its
 * own client) has every event and no row is pending.
 */
export async function benchDrain(options: {
  storage: "postgres" | "pglite";
  bus: "memory" | "nats";
  publishers: number;
  consumers: number;
  postgresBase?: string;
  events: number;
}): Promise<DrainFigures> {
  const { events } = options;
  const database = options.postgresBase ? await freshDatabase(options.postgresBase) : undefined;
  const namespace = `bench${randomBytes(4).toString("hex")}`;
  const openBus = () => (options.bus === "nats" ? natsBus({ url: NATS_URL, namespace }) : memoryBus());
  const masterKey = randomBytes(32);
  const instances: PaymentsDeps[] = [];
  const buses: MessageBus[] = [];
  try {
    // One at a time: the first applies the migrations.
    for (let n = 0; n < options.publishers; n++) {
      instances.push(await openPayments({ url: database?.url, masterKey }));
      buses.push(options.bus === "memory" && n > 0 ? buses[0]! : await openBus());
    }
    const written = await insertPending(instances[0]!.db, events);
    const received = new Map<string, number>();
    const seenByIntent = new Map<string, string[]>();
    let resolveAll = () => {};
    let giveUp: NodeJS.Timeout | undefined;
    // A lost event would leave the drain waiting for ever: after a minute it fails, saying how many arrived.
    const all = new Promise<void>((resolve, reject) => {
      resolveAll = resolve;
      giveUp = setTimeout(
        () => reject(new Error(`the consumer had ${received.size} of ${events} events after 60 s`)),
        60_000,
      );
    });
    const handle = async (event: BusEvent) => {
      received.set(event.id, (received.get(event.id) ?? 0) + 1);
      const seen = seenByIntent.get(event.aggregate_id) ?? [];
      seenByIntent.set(event.aggregate_id, seen);
      if (!seen.includes(event.id)) seen.push(event.id);
      if (received.size === events) resolveAll();
    };
    const consumers = [];
    for (let n = 0; n < options.consumers; n++) {
      const consumerBus = options.bus === "memory" ? buses[0]! : await openBus();
      if (consumerBus !== buses[0]) buses.push(consumerBus);
      consumers.push(await consumerBus.consume("events.internal", "bench", handle));
    }
    const published = new Map<string, number>();
    let publishedAt = 0;
    const cpu = cpuSince();
    const started = performance.now();
    const running = await Promise.all(
      instances.map((instance, n) => {
        const bus = countingBus(buses[options.bus === "memory" ? 0 : n]!, published, events, () => {
          publishedAt = performance.now();
        });
        return startJobs(instance.outboxPublisher(bus).jobs({ name: "payments" }));
      }),
    );
    await all.finally(() => clearTimeout(giveUp));
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = cpu();
    await Promise.all(running.map((each) => each.stop()));
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    const [{ pending }] = (await instances[0]!.db.query<{ pending: string }>(
      "SELECT count(*) AS pending FROM outbox_events WHERE status <> 'published'",
    )) as [{ pending: string }];
    const expected = [...written.values()].flat();
    const duplicates = (counts: Map<string, number>) => [...counts.values()].reduce((sum, n) => sum + n - 1, 0);
    return {
      storage: options.storage,
      bus: options.bus,
      publishers: options.publishers,
      consumers: options.consumers,
      events: received.size,
      seconds: Math.round(seconds * 100) / 100,
      events_per_second: Math.round(events / seconds),
      published_seconds: Math.round((publishedAt - started) / 10) / 100,
      duplicates_at_publisher: duplicates(published),
      duplicates_at_consumer: duplicates(received),
      lost: expected.filter((id) => !received.has(id)).length + Number(pending),
      order_violations: [...written].filter(([intent, ids]) => (seenByIntent.get(intent) ?? []).join() !== ids.join())
        .length,
      ...cpuSeconds,
    };
  } finally {
    await Promise.all(instances.map((instance) => instance.close()));
    await Promise.all([...new Set(buses)].map((bus) => bus.close()));
    if (options.bus === "nats") await dropNatsStreams(NATS_URL, namespace);
    await database?.drop();
  }
}

/**
 * The drains on PostgreSQL when `postgresBase` is given (on NATS when it answers); with `embedded`, the drain on
 * PGlite and the notification rounds on the embedded platform (`embedded.shared`, the smoke run's, when given).
 */
export async function benchEvents(
  scale: Scale,
  options: { postgresBase?: string; embedded?: { shared?: BenchPlatform } },
) {
  const { postgresBase, embedded } = options;
  const drains: DrainFigures[] = [];
  const withNats = await natsReachable(NATS_URL);
  const { events } = scale;
  if (postgresBase) {
    drains.push(
      await benchDrain({ storage: "postgres", bus: "memory", publishers: 4, consumers: 1, postgresBase, events }),
    );
    // NATS with as many consumers as publishers: 1, 2 and 4 of each.
    for (const processes of withNats ? [1, 2, 4] : []) {
      drains.push(
        await benchDrain({
          storage: "postgres",
          bus: "nats",
          publishers: processes,
          consumers: processes,
          postgresBase,
          events,
        }),
      );
    }
  }
  if (embedded)
    drains.push(await benchDrain({ storage: "pglite", bus: "memory", publishers: 1, consumers: 1, events }));
  for (const drain of drains) {
    requireClean(`events drain (${drain.storage}, ${drain.bus})`, {
      lost: drain.lost,
      duplicated_at_the_consumer: drain.duplicates_at_consumer,
      out_of_order: drain.order_violations,
    });
  }
  const notification = embedded
    ? await benchNotification({
        terminals: scale.terminals,
        intervalMs: [scale.notificationPaceMs, 0],
        shared: embedded.shared,
      })
    : [];
  return { drains, nats: withNats ? NATS_URL : "unreachable", notification };
}
