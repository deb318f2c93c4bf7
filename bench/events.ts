// Issue 10's events benchmark. Drain: 10,000 pending outbox rows inserted directly, published by 4 publishers on
// PostgreSQL (or one on PGlite) to the memory bus or NATS; counted at the publisher and at a consumer. Notification:
// 200 graphql-ws clients on the embedded platform, each following one intent that the sandbox provider's webhook
// makes succeed.
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import { performance } from "node:perf_hooks";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { startJobs } from "@pos-cloud/common/jobs";
import { type BusEvent, type MessageBus, memoryBus, natsBus } from "@pos-cloud/common/messaging";
import { openPayments, type PaymentsDeps } from "@pos-cloud/payments";
import { type Client, createClient } from "graphql-ws";
import pg from "pg";
import { ulid } from "ulid";
import WebSocket from "ws";
import type { DemoFile } from "../apps/platform/src/demo";
import { startPlatform } from "../apps/platform/src/platform";
import { deviceToken } from "../tests/support/device";
import { temporaryDirectory } from "../tests/support/environment";
import { call, signed } from "../tests/support/gateway";

const EVENTS = 10_000;
/** An intent's life as its events tell it: four events each, in this order. */
const STEPS = ["created", "requires_action", "processing", "succeeded"] as const;
const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const unlimited = Number.MAX_SAFE_INTEGER;

/** The payload `intentEventRow` writes: the intent as it stands after the step, and the event's metadata. */
function intentPayload(id: string, step: (typeof STEPS)[number], at: Date) {
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

/** 2,500 intents' 4 events each, written step by step as intents move in parallel; per intent, ids in order. */
async function insertPending(db: PaymentsDeps["db"]) {
  const intents = Array.from({ length: EVENTS / STEPS.length }, () => `pi_${ulid()}`);
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

/** Every publish the publishers make, by event id, once the bus took it; `onAll` when every event was taken. */
function countingBus(bus: MessageBus, published: Map<string, number>, onAll: () => void): MessageBus {
  return {
    ...bus,
    async publish(topic, event) {
      await bus.publish(topic, event);
      if (topic !== "events.internal") return;
      published.set(event.id, (published.get(event.id) ?? 0) + 1);
      if (published.size === EVENTS) onAll();
    },
  };
}

export interface DrainFigures {
  storage: "postgres" | "pglite";
  bus: "memory" | "nats";
  publishers: number;
  events: number;
  seconds: number;
  events_per_second: number;
  /** Until the bus had taken every event, before any consumer got them all. */
  published_seconds: number;
  duplicates_at_publisher: number;
  duplicates_at_consumer: number;
  lost: number;
  order_violations: number;
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
 * (each its own connections and bus client), timed until a consumer group has every event and no row is pending.
 */
export async function benchDrain(options: {
  storage: "postgres" | "pglite";
  bus: "memory" | "nats";
  publishers: number;
  postgresBase: string;
}): Promise<DrainFigures> {
  const database = options.storage === "postgres" ? await freshDatabase(options.postgresBase) : undefined;
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
    const written = await insertPending(instances[0]!.db);
    const received = new Map<string, number>();
    const seenByIntent = new Map<string, string[]>();
    let resolveAll = () => {};
    const all = new Promise<void>((resolve) => {
      resolveAll = resolve;
    });
    const consumerBus = options.bus === "memory" ? buses[0]! : await openBus();
    if (consumerBus !== buses[0]) buses.push(consumerBus);
    const consumer = await consumerBus.consume("events.internal", "bench", async (event: BusEvent) => {
      received.set(event.id, (received.get(event.id) ?? 0) + 1);
      const seen = seenByIntent.get(event.aggregate_id) ?? [];
      seenByIntent.set(event.aggregate_id, seen);
      if (!seen.includes(event.id)) seen.push(event.id);
      if (received.size === EVENTS) resolveAll();
    });
    const published = new Map<string, number>();
    let publishedAt = 0;
    const started = performance.now();
    const running = await Promise.all(
      instances.map((instance, n) => {
        const bus = countingBus(buses[options.bus === "memory" ? 0 : n]!, published, () => {
          publishedAt = performance.now();
        });
        return startJobs(instance.outboxPublisher(bus).jobs({ name: "payments" }));
      }),
    );
    await all;
    const seconds = (performance.now() - started) / 1000;
    await Promise.all(running.map((each) => each.stop()));
    await consumer.stop();
    const [{ pending }] = (await instances[0]!.db.query<{ pending: string }>(
      "SELECT count(*) AS pending FROM outbox_events WHERE status <> 'published'",
    )) as [{ pending: string }];
    const expected = [...written.values()].flat();
    const duplicates = (counts: Map<string, number>) => [...counts.values()].reduce((sum, n) => sum + n - 1, 0);
    return {
      storage: options.storage,
      bus: options.bus,
      publishers: options.publishers,
      events: received.size,
      seconds: Math.round(seconds * 100) / 100,
      events_per_second: Math.round(EVENTS / seconds),
      published_seconds: Math.round((publishedAt - started) / 10) / 100,
      duplicates_at_publisher: duplicates(published),
      duplicates_at_consumer: duplicates(received),
      lost: expected.filter((id) => !received.has(id)).length + Number(pending),
      order_violations: [...written].filter(([intent, ids]) => (seenByIntent.get(intent) ?? []).join() !== ids.join())
        .length,
    };
  } finally {
    await Promise.all(instances.map((instance) => instance.close()));
    await Promise.all([...new Set(buses)].map((bus) => bus.close()));
    if (options.bus === "nats") await dropNatsStreams(NATS_URL, namespace);
    await database?.drop();
  }
}

export interface NotificationFigures {
  clients: number;
  pace: string;
  latency_p50_ms: number;
  latency_p99_ms: number;
  latency_max_ms: number;
  received: number;
  pay_to_written: Percentiles;
  written_to_published: Percentiles;
  published_to_heard: Percentiles;
}

type Percentiles = ReturnType<typeof percentiles>;

const subscription = `subscription Follow($id: String!) {
  paymentIntentUpdated(id: $id) { id status amount currency failure_code failure_message }
}`;

function percentiles(latencies: number[]) {
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10;
  return { latency_p50_ms: at(0.5), latency_p99_ms: at(0.99), latency_max_ms: at(1) };
}

/**
 * The customer's pay request, on a connection of its own: a pooled one that the sandbox closed while idle, between
 * the phases, was reset under load.
 */
function pay(url: string) {
  return new Promise<void>((resolve, reject) => {
    const request = http.request(url, { method: "POST", agent: false }, (response) => {
      response.resume();
      response.on("end", resolve);
    });
    request.on("error", reject);
    request.end();
  });
}

/**
 * 200 terminals (graphql-ws clients with the demo device's token) each follow one confirmed intent; then the
 * customer pays each intent at the sandbox, which notifies the gateway, and the time is taken from the pay request to
 * the client's `succeeded` message. `intervalMs` paces the payments; 0 sends them all at once.
 */
export async function benchNotification(options: { clients: number; intervalMs: number[] }) {
  const dir = temporaryDirectory("pos-cloud-bench-events-");
  const platform = await startPlatform({
    port: 0,
    host: "127.0.0.1",
    dataDir: dir.path,
    demo: true,
    databaseUrls: {},
    rateLimits: { merchant: unlimited, store: unlimited, ip: unlimited, global: unlimited, api: unlimited },
  });
  const clients: Client[] = [];
  try {
    const demo: DemoFile = JSON.parse(readFileSync(platform.demoFile!, "utf8"));
    const results: NotificationFigures[] = [];
    for (const intervalMs of options.intervalMs) {
      const intents: { id: string; transaction: string }[] = [];
      for (let n = 0; n < options.clients; n++) {
        const created = await signed(platform.baseUrl, demo.partner, "POST", "/v1/payment_intents", {
          amount: 1200,
          currency: "JPY",
          payment_method_types: ["qr_mpm"],
          merchant_ref_id: `bench-${randomBytes(6).toString("hex")}`,
          merchant_store_id: String(demo.store.id),
        });
        const confirmed = await call(platform.baseUrl, "POST", `/v1/payment_intents/${created.body.id}/confirm`, {
          payment_token: created.body.payment_token.token,
          payment_method_type: "qr_mpm",
          provider: "sandbox",
        });
        if (created.status !== 201 || confirmed.status !== 200)
          throw new Error(`creating an intent answered ${created.status}, confirming ${confirmed.status}`);
        const { provider_transaction_id } = await platform.payments.prisma.paymentIntent.findUniqueOrThrow({
          where: { id: created.body.id },
        });
        intents.push({ id: created.body.id, transaction: provider_transaction_id! });
      }
      // A device token lasts 90 s: taken once the intents exist.
      const device = await deviceToken(platform.baseUrl, demo.device);
      const paidAt = new Map<string, number>();
      const heardAt = new Map<string, number>();
      const latencies: number[] = [];
      let firstMessages = 0;
      let onFirst = () => {};
      let onDone = () => {};
      let onError = (_: Error) => {};
      const ready = new Promise<void>((resolve) => {
        onFirst = resolve;
      });
      const done = new Promise<void>((resolve, reject) => {
        onDone = resolve;
        onError = reject;
      });
      for (const intent of intents) {
        const client = createClient({
          url: demo.graphql_ws_url,
          webSocketImpl: WebSocket,
          retryAttempts: 0,
          connectionParams: { authorization: `Bearer ${device}` },
        });
        clients.push(client);
        client.subscribe<{ paymentIntentUpdated: { status: string } }>(
          { query: subscription, variables: { id: intent.id } },
          {
            next: (message) => {
              const status = message.data?.paymentIntentUpdated.status;
              if (status === "requires_action" && ++firstMessages === intents.length) onFirst();
              if (status !== "succeeded") return;
              heardAt.set(intent.id, Date.now());
              latencies.push(performance.now() - paidAt.get(intent.id)!);
              if (latencies.length === intents.length) onDone();
            },
            error: (error) => onError(new Error(`the subscription of ${intent.id} failed: ${JSON.stringify(error)}`)),
            complete: () => {},
          },
        );
      }
      // 60 s to subscribe, then 60 s after the last payment: a loaded machine takes long over 200 at once.
      const giveUp = () =>
        setTimeout(() => {
          const heard = `${firstMessages} heard their first state, ${latencies.length} of ${intents.length} their success`;
          onError(new Error(`not every client heard of its intent within 60 s: ${heard}`));
        }, 60_000);
      let deadline = giveUp();
      await Promise.race([ready, done]);
      const paidAtWall = new Map<string, number>();
      const started = performance.now();
      for (const [n, intent] of intents.entries()) {
        const due = started + n * intervalMs;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        paidAt.set(intent.id, performance.now());
        paidAtWall.set(intent.id, Date.now());
        void pay(`${demo.provider.base_url}/sandbox/transactions/${intent.transaction}/pay`).catch((error: Error) =>
          onError(new Error(`paying ${intent.id} at the sandbox failed: ${error.message}`)),
        );
      }
      clearTimeout(deadline);
      deadline = giveUp();
      await done;
      clearTimeout(deadline);
      await Promise.all(clients.splice(0).map((client) => client.dispose()));
      // Where the time went, by the succeeded event's outbox row: written (the webhook applied), published, heard.
      const rows = await platform.payments.db.query<{ aggregate_id: string; created_at: Date; published_at: Date }>(
        `SELECT aggregate_id, created_at, published_at FROM outbox_events
         WHERE event_type = 'payment_intent.succeeded' AND aggregate_id = ANY($1::text[])`,
        [intents.map((intent) => intent.id)],
      );
      const segment = (from: (row: (typeof rows)[number]) => number, to: (row: (typeof rows)[number]) => number) =>
        percentiles(rows.map((row) => to(row) - from(row)));
      results.push({
        clients: intents.length,
        pace: intervalMs > 0 ? `one payment every ${intervalMs} ms` : "all at once",
        received: latencies.length,
        ...percentiles(latencies),
        pay_to_written: segment(
          (row) => paidAtWall.get(row.aggregate_id)!,
          (row) => row.created_at.getTime(),
        ),
        written_to_published: segment(
          (row) => row.created_at.getTime(),
          (row) => row.published_at.getTime(),
        ),
        published_to_heard: segment(
          (row) => row.published_at.getTime(),
          (row) => heardAt.get(row.aggregate_id)!,
        ),
      });
    }
    return results;
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
    await platform.close();
    dir.remove();
  }
}

export async function benchEvents(postgresBase: string) {
  const drains: DrainFigures[] = [];
  const withNats = await natsReachable(NATS_URL);
  for (const bus of withNats ? (["memory", "nats"] as const) : (["memory"] as const)) {
    drains.push(await benchDrain({ storage: "postgres", bus, publishers: 4, postgresBase }));
  }
  drains.push(await benchDrain({ storage: "pglite", bus: "memory", publishers: 1, postgresBase }));
  const notification = await benchNotification({ clients: 200, intervalMs: [100, 0] });
  return { drains, nats: withNats ? NATS_URL : "unreachable", notification };
}
