import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call, signed } from "../support/gateway";
import { byIntent } from "../support/partner-events";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStorePartner, seed } from "../support/seed";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { capturedIntent, countsById, deadLettersOf, everyPage, signedList } from "../support/webhook-recovery";

let platform: TestPlatform;
let partner: SeededStorePartner;
let receiver: WebhookReceiver;
beforeAll(async () => {
  // Retries a tenth of a second apart: the three attempts and the dead letter in well under a second.
  platform = await startTestPlatform({
    partnerWebhooks: { allowPrivateUrls: true, timeoutMs: 2_000, retryDelaysMs: [100, 100] },
    demo: false,
  });
  partner = await seed(platform).storePartner();
  receiver = await startWebhookReceiver();
  expect(
    (await signed(platform.baseUrl, partner, "PUT", "/v1/api_key/webhook", { webhook_url: receiver.url })).status,
  ).toBe(200);
});
afterAll(async () => {
  await receiver?.close();
  await platform?.close();
});

describe("a partner recovering from an outage of its endpoint", () => {
  it("lists its dead letters, redelivers them and receives each event once by id; its events list has them too", async () => {
    const since = new Date();
    receiver.answer([], 503);
    const intents = [
      await capturedIntent(platform.baseUrl, partner, 1100),
      await capturedIntent(platform.baseUrl, partner, 1200),
    ];
    const letters = await deadLettersOf(platform.baseUrl, partner, since, intents.length);
    for (const letter of letters) {
      expect(letter).toMatchObject({ status: "dead", attempts: 3, last_status_code: 503 });
      expect(letter.attempt_log).toHaveLength(3);
      expect(letter.attempt_log[0]).toMatchObject({
        status_code: 503,
        error: "HTTP 503",
        latency_ms: expect.any(Number),
      });
    }

    receiver.answer([], 204);
    const back = receiver.received.length;
    const redelivered = await signed(platform.baseUrl, partner, "POST", "/v1/webhook_deliveries/redeliver", {
      since: since.toISOString(),
    });
    expect(redelivered).toMatchObject({ status: 200, body: { has_more: false } });
    expect(redelivered.body.queued.map((queued: { id: string }) => queued.id)).toEqual(
      letters.map((letter) => letter.id).reverse(),
    );
    await vi.waitFor(() => expect(receiver.received.length - back).toBe(intents.length), {
      timeout: 10_000,
      interval: 50,
    });
    const counts = countsById(receiver.received.slice(back));
    expect([...counts.keys()].sort()).toEqual(letters.map((letter) => letter.id).sort());
    expect([...counts.values()]).toEqual(intents.map(() => 1));

    const events = await everyPage(platform.baseUrl, partner, "/v1/events", { created_after: since.toISOString() });
    expect(events.map((event) => event.data.id)).toEqual(intents);
    expect(events.map((event) => event.id).sort()).toEqual([...counts.keys()].sort());
    for (const [, ofIntent] of byIntent(events)) {
      expect(ofIntent.map((event) => event.created_at)).toEqual(ofIntent.map((event) => event.created_at).sort());
    }
    await vi.waitFor(async () => {
      const delivered = await everyPage(platform.baseUrl, partner, "/v1/events", {
        created_after: since.toISOString(),
      });
      expect(delivered.map((event) => event.delivery_status)).toEqual(intents.map(() => "delivered"));
    });

    const changed = await signedList(platform.baseUrl, partner, "/v1/payment_intents", {
      updated_since: since.toISOString(),
    });
    expect(changed.body.map((intent: { id: string }) => intent.id).sort()).toEqual([...intents].sort());
  });

  it("redelivers one delivered event again under its id, and never queues one that is under way", async () => {
    const since = new Date();
    const intent = await capturedIntent(platform.baseUrl, partner, 1300);
    const [delivery] = await vi.waitFor(
      async () => {
        const listed = await signedList(platform.baseUrl, partner, "/v1/webhook_deliveries", {
          status: "delivered",
          created_after: since.toISOString(),
        });
        expect(listed.body).toHaveLength(1);
        return listed.body;
      },
      { timeout: 10_000, interval: 50 },
    );
    const seen = receiver.received.length;
    receiver.answer(["hang"], 204);
    const path = `/v1/webhook_deliveries/${delivery.id}/redeliver`;
    expect(await signed(platform.baseUrl, partner, "POST", path)).toMatchObject({
      status: 200,
      body: { id: delivery.id, status: "pending", attempts: 0 },
    });
    const again = await vi.waitFor(() => receiver.received[seen] ?? expect.fail("not sent again yet"), {
      timeout: 10_000,
      interval: 50,
    });
    expect(JSON.parse(again.body).data.id).toBe(intent);
    expect(again.headers["x-gw-event-id"]).toBe(delivery.id);
    // Its attempt hangs: the delivery is pending and claimed, so asking again sends nothing more.
    // A second signed request, not a replay of the first: a second later.
    const later = { timestamp: Math.floor(Date.now() / 1000) + 1 };
    expect(await signed(platform.baseUrl, partner, "POST", path, undefined, later)).toMatchObject({
      status: 409,
      body: { code: "invalid_state" },
    });
  });

  it("turns automatic redelivery on in the key's webhook settings, and refuses an order it does not know", async () => {
    const set = (body: unknown) => signed(platform.baseUrl, partner, "PUT", "/v1/api_key/webhook", body);
    expect(await set({ webhook_url: receiver.url, auto_redelivery: "oldest_first" })).toMatchObject({
      status: 200,
      body: { webhook_url: receiver.url, auto_redelivery: "oldest_first" },
    });
    expect(await set({ webhook_url: receiver.url, auto_redelivery: "sometimes" })).toMatchObject({
      status: 400,
      body: { code: "invalid_request", details: { field: "auto_redelivery" } },
    });
    expect((await signed(platform.baseUrl, partner, "GET", "/v1/api_key/webhook")).body).toMatchObject({
      auto_redelivery: "oldest_first",
    });
    expect(await set({ webhook_url: receiver.url, auto_redelivery: "off" })).toMatchObject({
      status: 200,
      body: { auto_redelivery: "off" },
    });
  });

  it.each([
    ["GET", "/v1/webhook_deliveries?status=lost", undefined, "status"],
    ["GET", "/v1/webhook_deliveries?created_after=yesterday", undefined, "created_after"],
    ["GET", "/v1/events?type=payment_intent.created", undefined, "type"],
    ["GET", "/v1/events?after=nonsense", undefined, "after"],
    ["POST", "/v1/webhook_deliveries/redeliver", { since: "last week" }, "since"],
    ["POST", "/v1/webhook_deliveries/redeliver", {}, "since"],
  ])("answers %s %s (%j) with a 400 naming %s", async (method, path, body, field) => {
    expect(await signed(platform.baseUrl, partner, method, path, body)).toMatchObject({
      status: 400,
      body: { code: "invalid_request", details: { field } },
    });
  });

  it("answers 404 to another key's delivery and 401 unsigned", async () => {
    const otherPartner = await platform.partners.createPartner("another POS");
    const other = await platform.partners.issueApiKey(otherPartner.id);
    const [delivery] = (await signedList(platform.baseUrl, partner, "/v1/webhook_deliveries", {})).body;
    expect(
      await signed(platform.baseUrl, other, "POST", `/v1/webhook_deliveries/${delivery.id}/redeliver`),
    ).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
    expect((await signedList(platform.baseUrl, other, "/v1/webhook_deliveries", {})).body).toEqual([]);
    expect(await call(platform.baseUrl, "GET", "/v1/events")).toMatchObject({
      status: 401,
      body: { code: "unauthorized" },
    });
  });
});
