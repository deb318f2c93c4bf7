import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Credentials, signed } from "../support/gateway";
import { byIntent } from "../support/partner-events";
import { callJson, logIn, postJson, startTestPlatform, type TestPlatform } from "../support/platform";
import { confirmAndPayByQr } from "../support/sandbox-provider";
import { type SeededStore, seed } from "../support/seed";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { countsById, deadLettersOf, everyPage } from "../support/webhook-recovery";

// Issue 33, "Done when": a new partner company goes from nothing to its first payments with nothing done in code,
// loses its endpoint while they finish, gets every event back once, and is held to its key's scope and its grant.
// Both wirings: the same REST calls against the embedded platform and the cluster.
let platform: TestPlatform;
let store: SeededStore;
let receiver: WebhookReceiver;
const tokens: Record<"operator" | "pspAdmin" | "merchantAdmin", string> = {} as never;
beforeAll(async () => {
  // Retries a tenth of a second apart: an endpoint down for longer than the three attempts dead-letters them.
  platform = await startTestPlatform({
    partnerWebhooks: { allowPrivateUrls: true, timeoutMs: 2_000, retryDelaysMs: [100, 100] },
    demo: false,
  });
  store = await seed(platform).store({ sells: true });
  for (const [name, role] of [
    ["operator", "SYSTEM_OP"],
    ["pspAdmin", "PSP_ADMIN"],
    ["merchantAdmin", "MERCHANT_ADMIN"],
  ] as const) {
    tokens[name] = (await logIn(platform.baseUrl, await seed(platform).user(role, store))).access_token;
  }
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await platform?.close();
});

const intentBody = (payment_method_types: string[]) => ({
  amount: 2400,
  currency: "JPY",
  payment_method_types,
  merchant_ref_id: `journey-${randomUUID()}`,
  merchant_store_id: store.code,
});

/** A QR intent the customer pays at the sandbox, and a card intent captured: each ends in payment_intent.succeeded. */
async function twoPayments(key: Credentials) {
  const qr = await signed(platform.baseUrl, key, "POST", "/v1/payment_intents", intentBody(["qr_mpm"]));
  expect(qr.status).toBe(201);
  await confirmAndPayByQr(platform.baseUrl, seed(platform).providers().provider.base_url, qr.body);
  const card = await signed(platform.baseUrl, key, "POST", "/v1/payment_intents", intentBody(["credit_card"]));
  expect(card.status).toBe(201);
  const captured = await signed(platform.baseUrl, key, "POST", `/v1/payment_intents/${card.body.id}/capture`, {});
  expect(captured.status).toBe(200);
  return [qr.body.id as string, card.body.id as string];
}

describe("a new partner company, end to end", () => {
  it("is onboarded, granted, paid, recovers its events after an outage, and is held to its scope and grant", async () => {
    const { operator, pspAdmin, merchantAdmin } = tokens;
    /** Each look at its own grants a request of its own: a signature is taken once, so the page size varies. */
    let looks = 0;
    // L0 creates the company and its keys: one that may do everything, one that only reads intents.
    const partner = (await postJson(platform.baseUrl, "/api/v1/partners", { name: "Journey POS" }, operator)).body;
    const keys = `/api/v1/partners/${partner.id}/api-keys`;
    const key: Credentials = (await postJson(platform.baseUrl, keys, {}, operator)).body;
    const reader = await postJson(platform.baseUrl, keys, { permissions: ["payment_intents:read"] }, operator);
    expect(reader.status).toBe(201);
    const webhook = await signed(platform.baseUrl, key, "PUT", "/v1/api_key/webhook", { webhook_url: receiver.url });
    expect(webhook.status).toBe(200);

    // No store until one is granted; L1 of the merchant's PSP grants it.
    const refused = await signed(platform.baseUrl, key, "POST", "/v1/payment_intents", intentBody(["credit_card"]));
    expect(refused.body).toMatchObject({ code: "invalid_request", details: { constraint: "unknown_store" } });
    const grants = `/api/v1/partners/${partner.id}/grants`;
    const granted = await postJson(
      platform.baseUrl,
      grants,
      { merchant_id: store.merchant_id, store_ids: [store.id] },
      pspAdmin,
    );
    expect(granted.status).toBe(201);
    const ownGrants = async () => (await signed(platform.baseUrl, key, "GET", `/v1/grants?limit=${++looks}`)).body;
    expect(await ownGrants()).toEqual(granted.body.grants);

    // The partner's endpoint is down while its first payments finish: their events go to dead letters.
    const since = new Date();
    receiver.answer([], 503);
    const intents = await twoPayments(key);
    const letters = await deadLettersOf(platform.baseUrl, key, since, intents.length);
    expect(letters.map((letter) => letter.status)).toEqual(["dead", "dead"]);
    expect(receiver.received.every((request) => request.headers["x-gw-event-id"])).toBe(true);

    // It comes back; the partner redelivers its dead letters and gets each event exactly once by id.
    receiver.answer([], 204);
    const back = receiver.received.length;
    const redelivered = await signed(platform.baseUrl, key, "POST", "/v1/webhook_deliveries/redeliver", {
      since: since.toISOString(),
    });
    expect(redelivered.status).toBe(200);
    expect(redelivered.body.queued).toHaveLength(intents.length);
    await vi.waitFor(() => expect(receiver.received.length - back).toBe(intents.length), {
      timeout: 10_000,
      interval: 50,
    });
    const counts = countsById(receiver.received.slice(back));
    expect([...counts.values()]).toEqual([1, 1]);
    expect(
      receiver.received
        .slice(back)
        .map((request) => JSON.parse(request.body).data.id)
        .sort(),
    ).toEqual([...intents].sort());
    const events = await everyPage(platform.baseUrl, key, "/v1/events", { created_after: since.toISOString() });
    expect(events.map((event) => event.id).sort()).toEqual([...counts.keys()].sort());
    for (const [, ofIntent] of byIntent(events)) {
      const times = ofIntent.map((event) => event.created_at);
      expect(times).toEqual([...times].sort());
    }

    // The read-only key reads, and is refused a payment naming the permission it lacks.
    const readerKey: Credentials = reader.body;
    expect((await signed(platform.baseUrl, readerKey, "GET", "/v1/payment_intents?limit=5")).status).toBe(200);
    const outOfScope = await signed(
      platform.baseUrl,
      readerKey,
      "POST",
      "/v1/payment_intents",
      intentBody(["credit_card"]),
    );
    expect(outOfScope.status).toBe(403);
    expect(outOfScope.body).toMatchObject({
      code: "missing_permission",
      details: { permission: "payment_intents:write" },
    });

    // The merchant's admin revokes the grant: no new payment, no refund; its own records stay readable.
    const revoked = await callJson(platform.baseUrl, "DELETE", `${grants}/${granted.body.grants[0].id}`, merchantAdmin);
    expect(revoked.body).toMatchObject({ status: "revoked" });
    expect(await ownGrants()).toEqual([revoked.body]);
    const after = await signed(platform.baseUrl, key, "POST", "/v1/payment_intents", intentBody(["credit_card"]));
    expect(after.body).toMatchObject({ details: { constraint: "unknown_store" } });
    const refund = await signed(platform.baseUrl, key, "POST", `/v1/payment_intents/${intents[1]}/refund`, {
      amount: 100,
      merchant_ref_id: `refund-${randomUUID()}`,
    });
    expect(refund.status).toBe(403);
    const own = await signed(platform.baseUrl, key, "GET", "/v1/payment_intents?limit=10");
    expect(own.body.find((intent: { id: string }) => intent.id === intents[1])).toMatchObject({ status: "succeeded" });
  });
});
