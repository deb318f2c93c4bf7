import { terminalIntentEvent } from "@pos-cloud/test-support/partner-events";
import { seedPartner } from "@pos-cloud/test-support/payments";
import { webhookTestBed, webhookTestSettings } from "@pos-cloud/test-support/webhook-test-bed";
import { describe, expect, it } from "vitest";

// One attempt of a key at a time, so that the order deliveries are claimed in is the order they arrive in.
const bed = webhookTestBed({ ...webhookTestSettings, perKeyConcurrency: 1 });
const { clock, advance } = bed;

/** Runs the dispatcher through the three attempts of what is due (0 s, 5 s, 25 s). */
async function throughEveryAttempt() {
  for (const pause of [0, 5_000, 20_000]) {
    advance(pause);
    await bed.drain();
  }
}

/** Writes a terminal event of the partner as published, as the outbox publisher leaves it, and enqueues it. */
async function published(client_partner_id: number, status = "succeeded", intentId?: string) {
  const event = terminalIntentEvent(client_partner_id, clock(), status, intentId);
  await bed.deps.prisma.outboxEvent.create({
    data: {
      id: event.id,
      event_type: event.event_type,
      aggregate_id: event.aggregate_id,
      payload: event.payload,
      status: "published",
      created_at: new Date(event.created_at),
      published_at: clock(),
    },
  });
  await bed.deps.partnerWebhooks.accept(event);
  return event;
}

describe("a partner's deliveries", () => {
  it("lists them newest first by status, event type and time, with every attempt's answer and latency", async () => {
    const { partner, key, caller } = await bed.partnerWithWebhook();
    bed.receiver.answer([503, 503, 503], 204);
    const dead = await published(partner.id, "failed");
    await throughEveryAttempt();
    advance(1_000);
    const delivered = await published(partner.id);
    await bed.drain();
    bed.receiver.answer([500], 204);
    advance(1_000);
    const retrying = await published(partner.id);
    await bed.drain();

    const list = (args: Record<string, unknown> = {}) =>
      bed.deps.apiKeyWebhooks.deliveriesPage(caller, key.client_id, args);
    const ids = async (args: Record<string, unknown>) =>
      (await list(args)).nodes.map((node) => JSON.parse(node.body).data.id);
    expect(await ids({})).toEqual([retrying.aggregate_id, delivered.aggregate_id, dead.aggregate_id]);
    expect(await ids({ status: "failed" })).toEqual([retrying.aggregate_id, dead.aggregate_id]);
    expect(await ids({ status: "dead" })).toEqual([dead.aggregate_id]);
    expect(await ids({ status: "delivered" })).toEqual([delivered.aggregate_id]);
    expect(await ids({ event_type: "payment_intent.failed" })).toEqual([dead.aggregate_id]);
    const [deadDelivery] = (await list({ status: "dead" })).nodes;
    expect(await ids({ created_after: deadDelivery!.created_at })).toEqual([
      retrying.aggregate_id,
      delivered.aggregate_id,
    ]);
    const [deliveredDelivery] = (await list({ status: "delivered" })).nodes;
    expect(await ids({ created_before: deliveredDelivery!.created_at })).toEqual([dead.aggregate_id]);

    const first = await list({ limit: 2 });
    expect(first).toMatchObject({ total_count: 3, page_info: { has_next_page: true } });
    const rest = await list({ limit: 2, after: first.page_info.end_cursor });
    expect(rest.nodes.map((node) => JSON.parse(node.body).data.id)).toEqual([dead.aggregate_id]);

    const [letter] = (await list({ status: "dead" })).nodes;
    expect(letter!.attempt_log).toEqual([
      expect.objectContaining({ status_code: 503, error: "HTTP 503", latency_ms: expect.any(Number) }),
      expect.objectContaining({ status_code: 503, error: "HTTP 503" }),
      expect.objectContaining({ status_code: 503, error: "HTTP 503" }),
    ]);
    // The clock runs on between the moves, so the attempts are at least the retry pauses apart.
    const [one, two, three] = letter!.attempt_log.map((attempt) => attempt.attempted_at.getTime());
    expect(two! - one!).toBeGreaterThanOrEqual(5_000);
    expect(three! - two!).toBeGreaterThanOrEqual(20_000);
  });

  it.each([
    [{ status: "lost" }, "status"],
    [{ event_type: "payment_intent.created" }, "event_type"],
    [{ created_after: new Date(2_000), created_before: new Date(1_000) }, "created_after"],
    [{ limit: 101 }, "limit"],
    [{ after: "nonsense" }, "after"],
  ])("refuses %j naming %s", async (args, field) => {
    const { key, caller } = await bed.partnerWithWebhook();
    await expect(bed.deps.apiKeyWebhooks.deliveriesPage(caller, key.client_id, args)).rejects.toMatchObject({
      code: "invalid_request",
      details: { field },
    });
  });

  it("shows a partner none of another partner's deliveries or events", async () => {
    const { key } = await bed.partnerWithWebhook();
    const other = await seedPartner(bed.deps);
    await expect(bed.deps.apiKeyWebhooks.deliveriesPage(other.caller, key.client_id, {})).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(bed.deps.apiKeyWebhooks.events(other.caller, key.client_id, {})).rejects.toMatchObject({
      code: "forbidden",
    });
  });
});

describe("redelivery", () => {
  it("sends a dead letter or a delivered event again with the same id and body, one claim at a time", async () => {
    const { partner, key, caller } = await bed.partnerWithWebhook();
    bed.receiver.answer([503, 503, 503], 204);
    await published(partner.id);
    await throughEveryAttempt();
    const [letter] = (await bed.deps.apiKeyWebhooks.deliveriesPage(caller, key.client_id, { status: "dead" })).nodes;

    const twice = await Promise.allSettled([
      bed.deps.apiKeyWebhooks.redeliver(caller, key.client_id, letter!.id),
      bed.deps.apiKeyWebhooks.redeliver(caller, key.client_id, letter!.id),
    ]);
    expect(twice.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(twice.find((result) => result.status === "rejected")).toMatchObject({
      reason: { code: "invalid_state" },
    });
    // Queued, not yet sent: a pending delivery may be mid-attempt, so it is not queued again.
    await expect(bed.deps.apiKeyWebhooks.redeliver(caller, key.client_id, letter!.id)).rejects.toMatchObject({
      code: "invalid_state",
    });
    await bed.drain();
    await bed.drain();
    expect(bed.receiver.received).toHaveLength(4);
    expect(bed.receiver.received[3]).toMatchObject({ headers: { "x-gw-event-id": letter!.id }, body: letter!.body });

    const again = await bed.deps.apiKeyWebhooks.redeliver(caller, key.client_id, letter!.id);
    expect(again).toMatchObject({ status: "pending", attempts: 0 });
    await bed.drain();
    const [resent] = (await bed.deps.apiKeyWebhooks.deliveriesPage(caller, key.client_id, {})).nodes;
    expect(resent).toMatchObject({ id: letter!.id, status: "delivered", attempts: 1 });
    expect(resent!.attempt_log.map((attempt) => attempt.status_code)).toEqual([503, 503, 503, 204, 204]);
  });

  it("refuses another key's delivery as not found", async () => {
    const { partner, key, caller } = await bed.partnerWithWebhook();
    await published(partner.id);
    await bed.drain();
    const [delivery] = (await bed.deps.apiKeyWebhooks.deliveriesPage(caller, key.client_id, {})).nodes;
    const other = await seedPartner(bed.deps);
    await expect(
      bed.deps.apiKeyWebhooks.redeliver(other.caller, other.key.client_id, delivery!.id),
    ).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("queues the dead letters since a time, oldest first, and they go out in that order", async () => {
    const { partner, key, caller } = await bed.partnerWithWebhook();
    bed.receiver.answer([], 503);
    const before = await published(partner.id);
    await throughEveryAttempt();
    advance(60_000);
    const since = clock();
    const letters = [];
    for (let i = 0; i < 3; i++) {
      advance(1_000);
      letters.push(await published(partner.id));
    }
    await throughEveryAttempt();
    bed.receiver.answer([], 204);
    const seen = bed.receiver.received.length;

    const { queued, has_more } = await bed.deps.apiKeyWebhooks.redeliverDeadSince(caller, {
      client_id: key.client_id,
      since,
    });
    expect(has_more).toBe(false);
    expect(queued.map((delivery) => JSON.parse(delivery.body).data.id)).toEqual(
      letters.map((event) => event.aggregate_id),
    );
    await bed.drain();
    const sent = bed.receiver.received.slice(seen).map((request) => JSON.parse(request.body).data.id);
    expect(sent).toEqual(letters.map((event) => event.aggregate_id));
    const dead = await bed.deps.apiKeyWebhooks.deliveriesPage(caller, key.client_id, { status: "dead" });
    expect(dead.nodes.map((node) => JSON.parse(node.body).data.id)).toEqual([before.aggregate_id]);
    await expect(
      bed.deps.apiKeyWebhooks.redeliverDeadSince(caller, { client_id: key.client_id, since: "yesterday" }),
    ).rejects.toMatchObject({ code: "invalid_request", details: { field: "since" } });
  });
});

describe("a partner's events", () => {
  it("are its published events in write order, named as their webhooks, with or without a delivery", async () => {
    const { partner, key, caller } = await bed.partnerWithWebhook();
    const intent = `pi_${Date.now()}`;
    const succeeded = await published(partner.id, "succeeded", intent);
    advance(1_000);
    const cancelled = await published(partner.id, "cancelled", intent);
    await bed.drain();
    // A second key of the partner without a webhook: its events are listed all the same, under ids of its own.
    const second = await bed.deps.partners.issueApiKey(partner.id);
    const secondCaller = { ...caller, apiKeyId: second.id };
    const other = await seedPartner(bed.deps);
    await published(other.partner.id);

    const page = await bed.deps.apiKeyWebhooks.events(caller, key.client_id, {});
    expect(page.nodes.map((event) => [event.type, (event.data as { id: string }).id])).toEqual([
      ["payment_intent.succeeded", intent],
      ["payment_intent.cancelled", intent],
    ]);
    const ids = bed.receiver.received.map((request) => request.headers["x-gw-event-id"]);
    expect(page.nodes.map((event) => event.id)).toEqual(ids);
    expect(page.nodes.map((event) => event.delivery_status)).toEqual(["delivered", "delivered"]);

    const unhooked = await bed.deps.apiKeyWebhooks.events(secondCaller, second.client_id, { limit: 1 });
    expect(unhooked.nodes).toMatchObject([{ type: "payment_intent.succeeded", delivery_status: null }]);
    expect(unhooked.nodes[0]!.id).not.toBe(ids[0]);
    expect(unhooked.page_info.has_next_page).toBe(true);
    const next = await bed.deps.apiKeyWebhooks.events(secondCaller, second.client_id, {
      after: unhooked.page_info.end_cursor,
    });
    expect(next.nodes.map((event) => event.type)).toEqual(["payment_intent.cancelled"]);

    const after = { created_after: new Date(succeeded.created_at) };
    const filtered = await bed.deps.apiKeyWebhooks.events(caller, key.client_id, after);
    expect(filtered.nodes.map((event) => event.id)).toEqual([ids[1]]);
    const typed = await bed.deps.apiKeyWebhooks.events(caller, key.client_id, { type: cancelled.event_type });
    expect(typed.nodes.map((event) => event.id)).toEqual([ids[1]]);
  });
});

describe("automatic redelivery", () => {
  /** A partner whose endpoint is down until its dead letters are these intents' events; then it is back. */
  async function deadLettersOf(count: number) {
    const seeded = await bed.partnerWithWebhook();
    bed.receiver.answer([], 503);
    const letters = [];
    for (let i = 0; i < count; i++) {
      advance(1_000);
      letters.push((await published(seeded.partner.id)).aggregate_id);
    }
    await throughEveryAttempt();
    bed.receiver.answer([], 204);
    return { ...seeded, letters, seen: bed.receiver.received.length };
  }
  const sentSince = (seen: number) =>
    bed.receiver.received.slice(seen).map((request) => JSON.parse(request.body).data.id);

  it("is off by default: a later delivery leaves the dead letters dead, and nothing is probed", async () => {
    const { partner, key, caller, seen } = await deadLettersOf(2);
    expect(await bed.deps.apiKeyWebhooks.webhook(caller, key.client_id)).toMatchObject({ auto_redelivery: "off" });
    const later = await published(partner.id);
    await bed.drain();
    expect(await bed.deps.apiKeyWebhooks.probeDeadLetters()).toBe(0);
    await bed.drain();
    expect(sentSince(seen)).toEqual([later.aggregate_id]);
  });

  it("sends the dead letters again in the key's order once a later delivery succeeds", async () => {
    const { partner, key, caller, letters, seen } = await deadLettersOf(3);
    const url = bed.receiver.url;
    await bed.deps.apiKeyWebhooks.setWebhook(caller, {
      client_id: key.client_id,
      webhook_url: url,
      auto_redelivery: "newest_first",
    });
    const later = await published(partner.id);
    await bed.drain();
    await bed.drain();
    expect(sentSince(seen)).toEqual([later.aggregate_id, ...[...letters].reverse()]);
    const dead = await bed.deps.apiKeyWebhooks.deliveriesPage(caller, key.client_id, { status: "dead" });
    expect(dead.nodes).toEqual([]);
    // Setting the URL again without it leaves it on.
    expect(
      await bed.deps.apiKeyWebhooks.setWebhook(caller, { client_id: key.client_id, webhook_url: url }),
    ).toMatchObject({
      auto_redelivery: "newest_first",
    });
  });

  it("probes the endpoint with the first dead letter when nothing else goes, then sends the rest", async () => {
    const { key, caller, letters, seen } = await deadLettersOf(3);
    await bed.deps.apiKeyWebhooks.setWebhook(caller, {
      client_id: key.client_id,
      webhook_url: bed.receiver.url,
      auto_redelivery: "oldest_first",
    });
    expect(await bed.deps.apiKeyWebhooks.probeDeadLetters()).toBeGreaterThanOrEqual(1);
    const probe = await bed.deps.apiKeyWebhooks.deliveriesPage(caller, key.client_id, { status: "pending" });
    expect(probe.nodes.map((node) => JSON.parse(node.body).data.id)).toEqual([letters[0]]);
    await bed.drain();
    expect(sentSince(seen)).toEqual(letters);
  });

  it("refuses an order it does not know and changes nothing", async () => {
    const { key, caller } = await bed.partnerWithWebhook();
    const input = {
      client_id: key.client_id,
      webhook_url: "https://partner.example.com/other",
      auto_redelivery: "random",
    };
    await expect(bed.deps.apiKeyWebhooks.setWebhook(caller, input)).rejects.toMatchObject({
      code: "invalid_request",
      details: { field: "auto_redelivery" },
    });
    expect(await bed.deps.apiKeyWebhooks.webhook(caller, key.client_id)).toMatchObject({
      webhook_url: bed.receiver.url,
      auto_redelivery: "off",
    });
  });
});
