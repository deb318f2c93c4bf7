import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { startJobs } from "@pos-cloud/common/jobs";
import { type BusEvent, type MessageBus, memoryBus, natsBus } from "@pos-cloud/common/messaging";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { humanToken } from "../support/device";
import { clusterWiring, natsUrl } from "../support/environment";
import { call, signed } from "../support/gateway";
import { movableClock } from "../support/payments";
import { inProcessOnly, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStorePartner, seed } from "../support/seed";

const intentBody = (partner: SeededStorePartner) => ({
  amount: 1500,
  currency: "JPY",
  payment_method_types: ["qr_mpm"],
  merchant_ref_id: `order-${randomUUID()}`,
  merchant_store_id: partner.store_code,
});

/** The events of the bus's topic, as they arrive. */
async function recordTopic(bus: MessageBus, topic: "events.internal" | "webhooks.delivery") {
  const events: BusEvent[] = [];
  await bus.listen(topic, (event) => events.push(event));
  return events;
}

/** The series a PromQL expression reads: its names, without label matchers, ranges and PromQL's own words. */
const seriesOf = (expr: string) =>
  (expr.replace(/\{[^}]*\}|\[[^\]]*\]/g, "").match(/(?<![\w.])[a-z_:][\w:]*/gi) ?? []).filter(
    (word) => !promqlWords.has(word),
  );
const promqlWords = new Set([
  "max",
  "min",
  "sum",
  "avg",
  "rate",
  "increase",
  "offset",
  "by",
  "without",
  "and",
  "or",
  "time",
]);

const ofIntent = (events: BusEvent[], id: string) => events.filter((event) => event.aggregate_id === id);

describe("outbox events of a running platform", () => {
  let platform: TestPlatform;
  let partner: SeededStorePartner;
  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    partner = await seed(platform).storePartner();
  });
  afterAll(() => platform?.close());

  const create = () => signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", intentBody(partner));

  it("puts an intent created through /v1 on the bus within a second", async () => {
    const events = await recordTopic(platform.bus, "events.internal");
    const created = await create();
    expect(created.status).toBe(201);
    const answered = Date.now();
    await vi.waitFor(() => expect(ofIntent(events, created.body.id)).toHaveLength(1), { timeout: 1000, interval: 5 });
    expect(Date.now() - answered).toBeLessThan(1000);
    const [event] = ofIntent(events, created.body.id);
    expect(event).toMatchObject({ event_type: "payment_intent.created", aggregate_type: "payment_intent" });
    expect(event!.payload).toMatchObject({ payment_intent: { id: created.body.id, amount: 1500 } });
  });

  it("publishes an intent's events in their order, and only its terminal state to the webhook queue", async () => {
    const internal = await recordTopic(platform.bus, "events.internal");
    const partnerBound = await recordTopic(platform.bus, "webhooks.delivery");
    const created = await create();
    const cancelled = await call(platform.baseUrl, "POST", `/v1/payment_intents/${created.body.id}/cancel`, {
      payment_token: created.body.payment_token.token,
    });
    expect(cancelled.status).toBe(200);
    await vi.waitFor(() => expect(ofIntent(partnerBound, created.body.id)).toHaveLength(1), { timeout: 2000 });
    const written = await platform.payments.prisma.outboxEvent.findMany({
      where: { aggregate_id: created.body.id },
      orderBy: { seq: "asc" },
    });
    expect(written.map((row) => row.event_type)).toEqual(["payment_intent.created", "payment_intent.cancelled"]);
    await vi.waitFor(() => expect(ofIntent(internal, created.body.id)).toHaveLength(written.length));
    expect(ofIntent(internal, created.body.id).map((event) => event.id)).toEqual(written.map((row) => row.id));
    expect(ofIntent(partnerBound, created.body.id)[0]!.event_type).toBe("payment_intent.cancelled");
  });

  it("never publishes an event twice with a second publisher running beside the platform's", async () => {
    const events = await recordTopic(platform.bus, "events.internal");
    const second = await startJobs(platform.payments.outboxPublisher(platform.bus).jobs({ name: "payments" }));
    try {
      const created = await Promise.all(Array.from({ length: 20 }, () => create()));
      const ids = created.map((response) => response.body.id as string);
      const mine = () => events.filter((event) => ids.includes(event.aggregate_id));
      await vi.waitFor(() => expect(mine()).toHaveLength(ids.length), { timeout: 5000 });
      expect(new Set(mine().map((event) => event.id)).size).toBe(ids.length);
    } finally {
      await second.stop();
    }
  });

  // In-process only: a cluster's publisher runs in a worker, which serves them (tests/e2e/cluster-start.test.ts).
  inProcessOnly("serves the outbox metrics at /metrics in Prometheus text format", async () => {
    const response = await fetch(`${platform.adminUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toMatch(
      /pgw_outbox_events_published_total\{event_type="payment_intent.created",status="published"\} \d+/,
    );
    expect(text).toMatch(/pgw_outbox_publish_latency_seconds_bucket\{le="1",event_type="payment_intent.created"\}/);
    expect(text).toMatch(/^pgw_outbox_pending_count \d+$/m);
    expect(text).toMatch(/^pgw_outbox_failed_count \d+$/m);
  });

  // In-process only: one /metrics holds every series (in a cluster the outbox ones are the workers').
  inProcessOnly("exposes every series that the shipped alert rules use", async () => {
    const rules = parse(readFileSync(new URL("../../deploy/prometheus/alerts.yml", import.meta.url), "utf8")) as {
      groups: { rules: { alert: string; expr: string }[] }[];
    };
    const exposed = await (await fetch(`${platform.adminUrl}/metrics`)).text();
    const used = rules.groups.flatMap((group) => group.rules.flatMap((rule) => seriesOf(rule.expr)));
    expect(used).toEqual(expect.arrayContaining(["pgw_outbox_pending_count", "pgw_webhook_delivery_total"]));
    for (const series of used) expect(exposed, series).toMatch(new RegExp(`^# TYPE ${series} `, "m"));
  });
});

// In-process only: a bus of the test's own and a clock it moves.
describe.skipIf(clusterWiring)("an outbox event the bus keeps refusing", () => {
  const clock = movableClock();
  const inner = memoryBus();
  let refusing = true;
  const bus: MessageBus = {
    ...inner,
    publish: (topic, event) =>
      refusing ? Promise.reject(new Error("NATS is unreachable")) : inner.publish(topic, event),
  };
  let platform: TestPlatform;
  let partner: SeededStorePartner;
  let operator: string;
  beforeAll(async () => {
    platform = await startTestPlatform({ clock, bus, demo: false });
    partner = await seed(platform).storePartner();
    operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
  });
  afterAll(() => platform?.close());

  const failedEvents = async () =>
    (
      await postGraphQL(
        platform.baseUrl,
        "{ failedOutboxEvents { id aggregate_id retry_count last_error } }",
        {},
        operator,
      )
    ).body.data.failedOutboxEvents as { id: string; aggregate_id: string; retry_count: number; last_error: string }[];

  it("fails it at the fifth attempt, keeps it visible, and publishes it once an operator replays it", async () => {
    const created = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", intentBody(partner));
    const row = () =>
      platform.payments.prisma.outboxEvent.findFirstOrThrow({ where: { aggregate_id: created.body.id } });
    // The platform's publisher made the first attempt when the row was committed.
    await vi.waitFor(async () => expect((await row()).retry_count).toBeGreaterThanOrEqual(1), { timeout: 2000 });
    const extra = platform.payments.outboxPublisher(bus);
    for (let turn = 0; turn < 10 && (await row()).status !== "failed"; turn++) {
      clock.advance(60_000);
      await extra.publishBatch();
    }
    expect(await row()).toMatchObject({ status: "failed", retry_count: 5, last_error: "NATS is unreachable" });
    const failed = (await failedEvents()).find((event) => event.aggregate_id === created.body.id);
    expect(failed).toMatchObject({ retry_count: 5, last_error: "NATS is unreachable" });
    const metrics = await (await fetch(`${platform.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/^pgw_outbox_failed_count [1-9]\d*$/m);

    const admin = await humanToken(platform.portal, { role: "PSP_ADMIN", psp_id: 1 });
    const replay = `mutation ($input: ReplayOutboxEventsInput!) { replayOutboxEvents(input: $input) { replayed ids } }`;
    const refused = await postGraphQL(platform.baseUrl, replay, { input: { all_failed: true } }, admin);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    const invalid = await postGraphQL(platform.baseUrl, replay, { input: {} }, operator);
    expect(invalid.body.errors?.[0]?.extensions).toMatchObject({
      code: "INVALID_REQUEST",
      details: { field: "id", constraint: "one_of" },
    });

    refusing = false;
    const events = await recordTopic(bus, "events.internal");
    const replayed = await postGraphQL(platform.baseUrl, replay, { input: { id: failed!.id } }, operator);
    expect(replayed.body.data.replayOutboxEvents).toEqual({ replayed: 1, ids: [failed!.id] });
    await vi.waitFor(() => expect(events.map((event) => event.id)).toContain(failed!.id), { timeout: 2000 });
    await vi.waitFor(async () => expect((await row()).status).toBe("published"));
  });
});

const natsReachable = await connect({ servers: natsUrl, timeout: 1000, reconnect: false }).then(
  async (nc) => {
    await nc.close();
    return true;
  },
  () => false,
);

// In-process only: the platform on a bus of the test's own.
describe.runIf(natsReachable && !clusterWiring)(`the platform on NATS JetStream at ${natsUrl}`, () => {
  const namespace = `test_${randomUUID().replace(/-/g, "")}`;
  let platform: TestPlatform;
  let partner: SeededStorePartner;
  beforeAll(async () => {
    platform = await startTestPlatform({ bus: await natsBus({ url: natsUrl, namespace }), demo: false });
    partner = await seed(platform).storePartner();
  });
  afterAll(async () => {
    await platform?.close();
    const nc = await connect({ servers: natsUrl });
    const jsm = await jetstreamManager(nc);
    for (const stream of ["events_internal", "webhooks_delivery"]) await jsm.streams.delete(`${namespace}_${stream}`);
    await nc.close();
  });

  it("puts an intent's events on the stream, and its terminal state in a durable group's queue", async () => {
    const internal = await recordTopic(platform.bus, "events.internal");
    const dispatched: BusEvent[] = [];
    await platform.bus.consume("webhooks.delivery", "dispatcher", async (event) => {
      dispatched.push(event);
    });
    const created = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", intentBody(partner));
    await vi.waitFor(() => expect(ofIntent(internal, created.body.id)).toHaveLength(1), { timeout: 1000 });
    await call(platform.baseUrl, "POST", `/v1/payment_intents/${created.body.id}/cancel`, {
      payment_token: created.body.payment_token.token,
    });
    await vi.waitFor(() => expect(ofIntent(dispatched, created.body.id)).toHaveLength(1), { timeout: 2000 });
    expect(ofIntent(internal, created.body.id).map((event) => event.event_type)).toEqual([
      "payment_intent.created",
      "payment_intent.cancelled",
    ]);
  });
});
