import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Credentials, call, signed } from "../support/gateway";
import { callJson, getJson, logIn, postJson, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

let platform: TestPlatform;
/** A store that sells through the sandbox, synced to the gateway by the platform's own partner. */
let store: SeededStore;
let operator: string;
let pspAdmin: string;
let merchantAdmin: string;
let otherPspAdmin: string;
beforeAll(async () => {
  platform = await startTestPlatform({ paymentsPollIntervalMs: 60_000, demo: false });
  store = await seed(platform).store({ sells: true });
  const tokenOf = async (role: Parameters<ReturnType<typeof seed>["user"]>[0], at: SeededStore) =>
    (await logIn(platform.baseUrl, await seed(platform).user(role, at))).access_token;
  operator = await tokenOf("SYSTEM_OP", store);
  pspAdmin = await tokenOf("PSP_ADMIN", store);
  merchantAdmin = await tokenOf("MERCHANT_ADMIN", store);
  otherPspAdmin = await tokenOf("PSP_ADMIN", await seed(platform).store());
});
afterAll(() => platform?.close());

const createIntent = (key: Credentials) =>
  signed(platform.baseUrl, key, "POST", "/v1/payment_intents", {
    amount: 1500,
    currency: "JPY",
    payment_method_types: ["qr_mpm"],
    merchant_ref_id: `order-${randomUUID()}`,
    merchant_store_id: store.code,
  });

const unknownStore = {
  code: "invalid_request",
  message: "none of your stores has this code or id",
  details: { field: "merchant_store_id", constraint: "unknown_store" },
};

describe("partner grants over REST", () => {
  it("L0 creates a partner and its key, L1 grants it a store, and the partner takes a payment there", async () => {
    const partner = (await postJson(platform.baseUrl, "/api/v1/partners", { name: "Grantee POS" }, operator)).body;
    const key = (await postJson(platform.baseUrl, `/api/v1/partners/${partner.id}/api-keys`, {}, operator)).body;
    const grants = `/api/v1/partners/${partner.id}/grants`;
    const before = await createIntent(key);
    expect(before.status).toBe(400);
    expect(before.body).toEqual(unknownStore);

    const body = { merchant_id: store.merchant_id, store_ids: [store.id] };
    // Another PSP's merchant is not found for its admin; a merchant's own admin may not grant at all.
    expect((await postJson(platform.baseUrl, grants, body, otherPspAdmin)).status).toBe(404);
    expect((await postJson(platform.baseUrl, grants, body, merchantAdmin)).status).toBe(403);
    const granted = await postJson(platform.baseUrl, grants, body, pspAdmin);
    expect(granted.status).toBe(201);
    expect(granted.body.grants).toEqual([
      expect.objectContaining({
        client_partner_id: partner.id,
        merchant_id: store.merchant_id,
        store_id: store.id,
        status: "active",
        revoked_at: null,
      }),
    ]);
    // Granting it again answers the same grant.
    expect((await postJson(platform.baseUrl, grants, body, operator)).body).toEqual(granted.body);

    const created = await createIntent(key);
    expect(created.status).toBe(201);
    const confirmed = await call(platform.baseUrl, "POST", `/v1/payment_intents/${created.body.id}/confirm`, {
      payment_token: created.body.payment_token.token,
      payment_method_type: "qr_mpm",
      provider: "sandbox",
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ payment_id: created.body.id, provider: "sandbox" });

    // The merchant's admin sees who may act on its stores, and revokes.
    const listed = await getJson(platform.baseUrl, grants, merchantAdmin);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual(granted.body.grants);
    const onMerchant = await getJson(platform.baseUrl, `/api/v1/merchants/${store.merchant_id}/grants`, merchantAdmin);
    expect(onMerchant.body).toEqual(granted.body.grants);
    expect(
      (await getJson(platform.baseUrl, `/api/v1/merchants/${store.merchant_id}/grants`, otherPspAdmin)).status,
    ).toBe(404);
    const grantId = granted.body.grants[0].id;
    expect((await callJson(platform.baseUrl, "DELETE", `${grants}/${grantId}`, otherPspAdmin)).status).toBe(404);
    const revoked = await callJson(platform.baseUrl, "DELETE", `${grants}/${grantId}`, merchantAdmin);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: grantId, status: "revoked", revoked_at: expect.any(String) });
    const after = await createIntent(key);
    expect(after.body).toEqual(unknownStore);
    // The open intent finishes: the customer pays, the provider's notification lands, the partner reads it.
    const { provider_transaction_id } = await platform.payments.prisma.paymentIntent.findUniqueOrThrow({
      where: { id: created.body.id },
    });
    const sandbox = seed(platform).providers().provider;
    const paid = await fetch(`${sandbox.base_url}/sandbox/transactions/${provider_transaction_id}/pay`, {
      method: "POST",
    });
    expect(paid.status).toBe(200);
    // Each look a request of its own (a signature is taken once): the list, a page size apart.
    let look = 0;
    const statusOf = async () => {
      const listed = await signed(platform.baseUrl, key, "GET", `/v1/payment_intents?limit=${++look}`);
      return listed.body.find?.((intent: { id: string }) => intent.id === created.body.id)?.status;
    };
    await expect.poll(statusOf, { timeout: 5000 }).toBe("succeeded");
  });

  it("finishes a refund in flight when its grant is revoked, and refuses the partner's next refund", async () => {
    const partner = (await postJson(platform.baseUrl, "/api/v1/partners", { name: "Refunding POS" }, operator)).body;
    const key = (await postJson(platform.baseUrl, `/api/v1/partners/${partner.id}/api-keys`, {}, operator)).body;
    const grants = `/api/v1/partners/${partner.id}/grants`;
    const granted = await postJson(platform.baseUrl, grants, { merchant_id: store.merchant_id }, pspAdmin);
    expect(granted.status).toBe(201);
    const created = await createIntent(key);
    await call(platform.baseUrl, "POST", `/v1/payment_intents/${created.body.id}/confirm`, {
      payment_token: created.body.payment_token.token,
      payment_method_type: "qr_mpm",
      provider: "sandbox",
    });
    const intent = () => platform.payments.prisma.paymentIntent.findUniqueOrThrow({ where: { id: created.body.id } });
    const sandbox = seed(platform).providers().provider.base_url;
    await fetch(`${sandbox}/sandbox/transactions/${(await intent()).provider_transaction_id}/pay`, { method: "POST" });
    await expect.poll(async () => (await intent()).status).toBe("succeeded");

    // The provider takes its time over the refund: the grant is revoked while the gateway waits for its answer.
    const slow = await fetch(`${sandbox}/sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ delay_ms: 3000 }),
    });
    expect(slow.status).toBe(201);
    const refundPath = `/v1/payment_intents/${created.body.id}/refund`;
    const inFlight = signed(platform.baseUrl, key, "POST", refundPath, { amount: 500 });
    await expect.poll(async () => (await intent()).status).toBe("cancelling");
    const grantId = granted.body.grants[0].id;
    expect((await callJson(platform.baseUrl, "DELETE", `${grants}/${grantId}`, merchantAdmin)).status).toBe(200);

    const refunded = await inFlight;
    expect(refunded.status).toBe(201);
    expect(refunded.body).toMatchObject({ amount: 500, status: "succeeded" });
    const next = await signed(platform.baseUrl, key, "POST", refundPath, { amount: 500 });
    expect(next.status).toBe(403);
    expect(next.body).toMatchObject({ code: "forbidden" });
    const refunds = await platform.payments.prisma.refund.findMany({ where: { payment_intent_id: created.body.id } });
    expect(refunds.map((refund) => [refund.amount, refund.status])).toEqual([[500, "succeeded"]]);
  });

  it("answers a bad grant in the spec's error format and grants nothing", async () => {
    const partner = (await postJson(platform.baseUrl, "/api/v1/partners", { name: "Refused" }, operator)).body;
    const grants = `/api/v1/partners/${partner.id}/grants`;
    const bad = await postJson(platform.baseUrl, grants, { merchant_id: "one" }, operator);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "invalid_request", details: { field: "merchant_id" } });
    const foreign = await postJson(
      platform.baseUrl,
      grants,
      { merchant_id: store.merchant_id, store_ids: [store.id + 1_000_000] },
      operator,
    );
    expect(foreign.body).toMatchObject({ details: { field: "store_ids", constraint: "merchant_store" } });
    const missing = await callJson(platform.baseUrl, "DELETE", `${grants}/grt_nope`, operator);
    expect(missing.status).toBe(404);
    expect((await getJson(platform.baseUrl, grants, operator)).body).toEqual([]);
  });
});
