import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call, signed } from "../support/gateway";
import { logIn, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, type SeededStorePartner, seed } from "../support/seed";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

let platform: TestPlatform;
/** The store the intents are for, and the POS partner's key that signs for it and takes its webhooks. */
let store: SeededStore;
let partner: SeededStorePartner;
let receiver: WebhookReceiver;
/** Access tokens of the store's L0, L1 and L2 admins; each TOTP code logs in once. */
const tokens: Record<"operator" | "pspAdmin" | "merchantAdmin", string> = {
  operator: "",
  pspAdmin: "",
  merchantAdmin: "",
};
beforeAll(async () => {
  platform = await startTestPlatform({
    partnerWebhooks: { allowPrivateUrls: true, timeoutMs: 2_000, retryDelaysMs: [100, 100] },
    demo: false,
  });
  store = await seed(platform).store({ sells: true });
  partner = await seed(platform).storePartner(store);
  receiver = await startWebhookReceiver();
  const logInAs = async (role: "SYSTEM_OP" | "PSP_ADMIN" | "MERCHANT_ADMIN") =>
    (await logIn(platform.baseUrl, await seed(platform).user(role, store))).access_token;
  tokens.operator = await logInAs("SYSTEM_OP");
  tokens.pspAdmin = await logInAs("PSP_ADMIN");
  tokens.merchantAdmin = await logInAs("MERCHANT_ADMIN");
});
afterAll(async () => {
  await receiver?.close();
  await platform?.close();
});

const webhook = (method: string, body?: unknown, target = "/v1/api_key/webhook") =>
  signed(platform.baseUrl, partner, method, target, body);

describe("a partner's webhook over HMAC", () => {
  it("is set, read and removed for the key that signs", async () => {
    const set = await webhook("PUT", { webhook_url: `${receiver.url}?setup=1` });
    expect(set).toMatchObject({
      status: 200,
      body: { client_id: partner.client_id, webhook_url: `${receiver.url}?setup=1` },
    });
    expect(await webhook("GET")).toMatchObject({ status: 200, body: set.body });
    const removed = await webhook("DELETE");
    expect(removed.status).toBe(204);
    expect(removed.body).toBeNull();
    expect(await webhook("GET")).toMatchObject({ status: 200, body: { webhook_url: null } });
  });

  it.each([
    [{}, "required"],
    [{ webhook_url: 5 }, "type"],
    [{ webhook_url: "ftp://partner.example.com/hooks" }, "https"],
    [{ webhook_url: "https://user:pw@partner.example.com/hooks" }, "no_credentials"],
  ])("refuses %j with a 400 naming webhook_url (%s) and changes nothing", async (body, constraint) => {
    await webhook("PUT", { webhook_url: `${receiver.url}?keep=${randomUUID()}` });
    const before = await webhook("GET");
    const refused = await webhook("PUT", body);
    expect(refused).toMatchObject({
      status: 400,
      body: { code: "invalid_request", details: { field: "webhook_url", constraint } },
    });
    expect((await webhook("GET")).body).toEqual(before.body);
  });

  it("answers 401 to an unsigned call", async () => {
    expect(await call(platform.baseUrl, "GET", "/v1/api_key/webhook")).toMatchObject({
      status: 401,
      body: { code: "unauthorized" },
    });
  });

  it("posts a succeeded intent to the partner, signed with the webhook_secret its key was issued with", async () => {
    await webhook("PUT", { webhook_url: receiver.url });
    const created = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", {
      amount: 2500,
      currency: "JPY",
      payment_method_types: ["credit_card"],
      merchant_ref_id: `order-${randomUUID()}`,
      merchant_store_id: partner.store_code,
    });
    expect(created.status).toBe(201);
    const captured = await signed(
      platform.baseUrl,
      partner,
      "POST",
      `/v1/payment_intents/${created.body.id}/capture`,
      {},
    );
    expect(captured.status).toBe(200);
    let request = await receiver.next();
    while (JSON.parse(request.body).data.id !== created.body.id) request = await receiver.next();
    const event = new Webhook(partner.webhook_secret).verify(request.body, request.headers as never) as any;
    expect(event).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: "payment_intent.succeeded",
      data: { id: created.body.id, status: "succeeded", amount: 2500, currency: "JPY", store_id: store.id },
    });
    expect(event.data.captured_at).toEqual(expect.any(String));
    expect(request.headers["x-gw-event-id"]).toBe(event.id);
  });

  it("rotates the webhook secret, shown once", async () => {
    const rotated = await webhook("POST", undefined, "/v1/api_key/webhook/secret");
    expect(rotated).toMatchObject({
      status: 200,
      body: { client_id: partner.client_id, webhook_secret: expect.stringMatching(/^whsec_/) },
    });
    expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    expect(rotated.body.webhook_secret).not.toBe(partner.webhook_secret);
  });
});

describe("admins' webhook mutations", () => {
  const setWebhook = `mutation ($input: ApiKeyWebhookInput!) { setApiKeyWebhook(input: $input) { client_id webhook_url } }`;

  it("lets a system operator manage a platform partner's key and a PSP admin only its PSP's partners' keys", async () => {
    const input = { client_id: partner.client_id, webhook_url: `${receiver.url}?by=operator` };

    const byOperator = await postGraphQL(platform.baseUrl, setWebhook, { input }, tokens.operator);
    expect(byOperator.body.data?.setApiKeyWebhook).toEqual(input);
    const byPspAdmin = await postGraphQL(platform.baseUrl, setWebhook, { input }, tokens.pspAdmin);
    expect(byPspAdmin.body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");

    const pspPartner = await platform.partners.createPartner("PSP's own POS", { psp_id: store.psp_id });
    const key = await platform.partners.issueApiKey(pspPartner.id);
    const own = { client_id: key.client_id, webhook_url: "https://pos.example.com/hooks" };
    const byOwnAdmin = await postGraphQL(platform.baseUrl, setWebhook, { input: own }, tokens.pspAdmin);
    expect(byOwnAdmin.body.data?.setApiKeyWebhook).toEqual(own);
    const byMerchant = await postGraphQL(platform.baseUrl, setWebhook, { input: own }, tokens.merchantAdmin);
    expect(byMerchant.body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");

    const rotate = `mutation ($id: String!) { rotateApiKeyWebhookSecret(client_id: $id) { webhook_secret } }`;
    const rotated = await postGraphQL(platform.baseUrl, rotate, { id: key.client_id }, tokens.pspAdmin);
    expect(rotated.body.data?.rotateApiKeyWebhookSecret.webhook_secret).toMatch(/^whsec_/);
    const letters = `query ($id: String) { partnerWebhookDeadLetters(client_id: $id) { id } }`;
    expect((await postGraphQL(platform.baseUrl, letters, { id: key.client_id }, tokens.pspAdmin)).body.data).toEqual({
      partnerWebhookDeadLetters: [],
    });
    const everyKey = await postGraphQL(platform.baseUrl, letters, {}, tokens.pspAdmin);
    expect(everyKey.body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
  });
});

/** A card intent of the store, captured by the partner: it succeeds and is posted to the webhook. */
async function capturedCardIntent(amount: number) {
  const created = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", {
    amount,
    currency: "JPY",
    payment_method_types: ["credit_card"],
    merchant_ref_id: `order-${randomUUID()}`,
    merchant_store_id: partner.store_code,
  });
  const path = `/v1/payment_intents/${created.body.id}/capture`;
  expect((await signed(platform.baseUrl, partner, "POST", path, {})).status).toBe(200);
  return created;
}

describe("dead letters of a running platform", () => {
  const deadLetters = `query ($id: String) { partnerWebhookDeadLetters(client_id: $id) { id status attempts last_status_code } }`;
  const replay = `mutation ($id: String!) { replayPartnerWebhook(id: $id) { id status attempts } }`;

  it("dead-letters an event after three failed attempts; an operator's replay delivers the same event", async () => {
    const operator = tokens.operator;
    await webhook("PUT", { webhook_url: `${receiver.url}?dead=1` });
    receiver.answer([503, 503, 503], 204);
    const seen = receiver.received.length;
    const created = await capturedCardIntent(990);
    const letter = await vi.waitFor(
      async () => {
        const { body } = await postGraphQL(platform.baseUrl, deadLetters, { id: partner.client_id }, operator);
        const [first] = body.data.partnerWebhookDeadLetters;
        expect(first).toMatchObject({ status: "dead", attempts: 3, last_status_code: 503 });
        return first;
      },
      { timeout: 10_000, interval: 100 },
    );
    const attempts = receiver.received.slice(seen).filter((request) => request.headers["webhook-id"] === letter.id);
    expect(attempts).toHaveLength(3);

    const replayed = await postGraphQL(platform.baseUrl, replay, { id: letter.id }, operator);
    expect(replayed.body.data.replayPartnerWebhook).toEqual({ id: letter.id, status: "pending", attempts: 0 });
    let request = await receiver.next();
    while (request.headers["webhook-id"] !== letter.id || receiver.received.indexOf(request) < seen + 3) {
      request = await receiver.next();
    }
    expect(JSON.parse(request.body).data.id).toBe(created.body.id);

    const deliveries = `query ($id: String!, $status: PartnerWebhookDeliveryStatus, $limit: Int) {
      partnerWebhookDeliveries(client_id: $id, status: $status, limit: $limit) { id status attempts } }`;
    const listed = (status?: string, limit?: number, token = operator) =>
      postGraphQL(platform.baseUrl, deliveries, { id: partner.client_id, status, limit }, token);
    await vi.waitFor(
      async () =>
        expect((await listed()).body.data.partnerWebhookDeliveries).toContainEqual({
          id: letter.id,
          status: "delivered",
          attempts: 1,
        }),
      { timeout: 10_000, interval: 100 },
    );
    expect((await listed("dead")).body.data.partnerWebhookDeliveries).not.toContainEqual(
      expect.objectContaining({ id: letter.id }),
    );
    expect((await listed(undefined, 1)).body.data.partnerWebhookDeliveries).toHaveLength(1);
    expect((await listed(undefined, 101)).body.errors?.[0]?.extensions).toMatchObject({
      code: "INVALID_REQUEST",
      details: { field: "limit" },
    });
    expect((await listed(undefined, 5, tokens.merchantAdmin)).body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
  });

  it("shows an intent's timeline, its events and ledger rows, to the users who reach its store", async () => {
    const created = await capturedCardIntent(1500);
    const timeline = `query ($store: Int!, $id: String!) { store(id: $store) { payment_intent(id: $id) {
      status events { event_type intent_status } transactions { type status amount } } } }`;
    const read = await postGraphQL(
      platform.baseUrl,
      timeline,
      { store: store.id, id: created.body.id },
      tokens.merchantAdmin,
    );
    expect(read.body.data.store.payment_intent).toEqual({
      status: "succeeded",
      events: [
        { event_type: "payment_intent.created", intent_status: "requires_action" },
        { event_type: "payment_intent.succeeded", intent_status: "succeeded" },
      ],
      transactions: [{ type: "captured", status: "succeeded", amount: 1500 }],
    });
  });
});
