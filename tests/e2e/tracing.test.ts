import { randomBytes, randomUUID } from "node:crypto";
import { startTracing, type Tracing } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signed } from "../support/gateway";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../support/otlp-receiver";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStorePartner, seed } from "../support/seed";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

// Tracing is this process's: the platform runs in it (the embedded wiring), traced from its start.
let collector: OtlpReceiver;
let tracing: Tracing;
let platform: TestPlatform;
let partner: SeededStorePartner;
let hooks: WebhookReceiver;
beforeAll(async () => {
  collector = await startOtlpReceiver();
  tracing = await startTracing({ serviceName: "pos-cloud", endpoint: collector.url });
  platform = await startTestPlatform({
    partnerWebhooks: { allowPrivateUrls: true, timeoutMs: 2_000, retryDelaysMs: [100, 100] },
    demo: false,
  });
  const store = await seed(platform).store({ sells: true });
  partner = await seed(platform).storePartner(store);
  hooks = await startWebhookReceiver();
});
afterAll(async () => {
  await hooks?.close();
  await platform?.close();
  await tracing?.shutdown();
  await collector?.close();
});

/** Every span of the trace but its root has its parent in the trace: one tree, no hop that started a new one. */
const orphans = (trace: ReceivedSpan[], root: ReceivedSpan) =>
  trace.filter((span) => span !== root && !trace.some((parent) => parent.spanId === span.parentSpanId));

describe("tracing across a payment", () => {
  it("follows one capture from the partner's REST call to its webhook delivery in one trace", async () => {
    const set = await signed(platform.baseUrl, partner, "PUT", "/v1/api_key/webhook", { webhook_url: hooks.url });
    expect(set.status).toBe(200);
    const created = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", {
      amount: 1800,
      currency: "JPY",
      payment_method_types: ["credit_card"],
      merchant_ref_id: `order-${randomUUID()}`,
      merchant_store_id: partner.store_code,
    });
    expect(created.status).toBe(201);
    // The partner's own trace: its traceparent names the trace every hop after it joins.
    const traceId = randomBytes(16).toString("hex");
    const clientSpan = randomBytes(8).toString("hex");
    const path = `/v1/payment_intents/${created.body.id}/capture`;
    const captured = await signed(
      platform.baseUrl,
      partner,
      "POST",
      path,
      {},
      {
        headers: { traceparent: `00-${traceId}-${clientSpan}-01` },
      },
    );
    expect(captured.status).toBe(200);
    let delivered = await hooks.next();
    while (JSON.parse(delivered.body).data.id !== created.body.id) delivered = await hooks.next();
    expect(JSON.parse(delivered.body).type).toBe("payment_intent.succeeded");

    const spans = await collector.until((all) =>
      all.some((span) => span.traceId === traceId && span.name === "partner webhook delivery"),
    );
    const trace = spans.filter((span) => span.traceId === traceId);
    const edge = trace.find((span) => span.name === `POST ${path}`);
    expect(edge?.parentSpanId).toBe(clientSpan);
    const names = trace.map((span) => span.name);
    for (const hop of [
      "gateway.request",
      "subgraph payments",
      "db.query",
      "outbox publish payment_intent.succeeded",
      "partner-webhooks payment_intent.succeeded",
      "partner webhook delivery",
    ]) {
      expect(names).toContain(hop);
    }
    expect(orphans(trace, edge!).map((span) => span.name)).toEqual([]);
    expect(trace.find((span) => span.name === "partner webhook delivery")?.attributes).toMatchObject({
      "webhook.event_type": "payment_intent.succeeded",
      attempt: 1,
    });
  });
});
