import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { call, signed, startRateWindow } from "../support/gateway";
import { movableClock } from "../support/payments";
import { inProcessOnly, logIn, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStorePartner, seed } from "../support/seed";

// `/v1` and `/graphql` are two front doors: an operation `/v1` guards with a payment token and the per-IP limit, or
// with a partner's signature, must not be open through `/graphql` under the general limit only.
const ipLimit = 3;
const clock = movableClock();
let platform: TestPlatform;
let partner: SeededStorePartner;
let token: string;
beforeAll(async () => {
  platform = await startTestPlatform({ clock, rateLimits: { ip: ipLimit }, demo: false });
  const store = await seed(platform).store({ sells: true });
  partner = await seed(platform).storePartner(store);
  token = (await logIn(platform.baseUrl, await seed(platform).user("STAFF", store))).access_token;
});
afterAll(() => platform?.close());

const createIntent = async () => {
  const created = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", {
    amount: 1200,
    currency: "JPY",
    payment_method_types: ["qr_mpm"],
    merchant_ref_id: `doors-${randomUUID()}`,
    merchant_store_id: partner.store_code,
  });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, token: created.body.payment_token.token as string };
};

const webViewOperations = [
  `query($id: String!, $t: String!) { paymentIntentByToken(id: $id, payment_token: $t) { id status } }`,
  `query($id: String!, $t: String!) { paymentIntentTransactions(id: $id, payment_token: $t) { id } }`,
  `mutation($id: String!, $t: String!) { cancelPaymentIntent(id: $id, payment_token: $t) { id status } }`,
  `mutation($id: String!, $t: String!) {
    confirmPaymentIntent(id: $id, payment_token: $t, payment_method_type: "qr_mpm", provider: "sandbox") { payment_id }
  }`,
];

it("serves the payment-token operations on /v1 only", async () => {
  const intent = await createIntent();
  for (const query of webViewOperations) {
    const { status, body } = await postGraphQL(platform.baseUrl, query, { id: intent.id, t: intent.token }, token);
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]?.extensions?.code).toBe("GRAPHQL_VALIDATION_FAILED");
  }
  const row = await platform.payments.prisma.paymentIntent.findUniqueOrThrow({ where: { id: intent.id } });
  expect(row.status).toBe("requires_payment_method");
});

// In-process only: the rate-limit window is the platform's clock, which this test moves.
inProcessOnly("counts the payment-token reads on /v1 under the per-IP limit", async () => {
  const intent = await createIntent();
  const read = () => call(platform.baseUrl, "GET", `/v1/payment_intents/${intent.id}?payment_token=${intent.token}`);
  const statuses = [];
  startRateWindow(clock);
  for (let i = 0; i <= ipLimit; i++) statuses.push((await read()).status);
  expect(statuses).toEqual([200, 200, 200, 429]);
  // The next window of the platform's clock has its count anew.
  startRateWindow(clock);
  expect((await read()).status).toBe(200);
});

it("keeps provider notifications and the edge's own questions off /graphql", async () => {
  for (const query of [
    `mutation { receiveProviderWebhook(provider: "sandbox", raw_body: "e30=", signatures: {}) { received } }`,
    `mutation { claimSignature(signature: "${"0".repeat(64)}", ttl_seconds: 300) }`,
    `query { gatewayStore(client_partner_id: 1, merchant_store_id: "S1") { store_id merchant_id } }`,
  ]) {
    const { status, body } = await postGraphQL(platform.baseUrl, query, {}, token);
    expect(status).toBe(400);
    expect(body.errors?.[0]?.extensions?.code).toBe("GRAPHQL_VALIDATION_FAILED");
  }
});

it("answers the partner operations only to a signed partner", async () => {
  const intent = await createIntent();
  const refund = await postGraphQL(
    platform.baseUrl,
    `mutation($id: String!, $input: RefundPaymentIntentInput!) { refundPaymentIntent(id: $id, input: $input) { refund { id } } }`,
    { id: intent.id, input: { amount: 100 } },
    token,
  );
  expect(refund.body.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  const create = await postGraphQL(
    platform.baseUrl,
    `mutation($input: CreatePaymentIntentInput!) { createPaymentIntent(input: $input) { payment_intent { id } } }`,
    { input: { amount: 100, currency: "JPY", payment_method_types: ["cash"], merchant_ref_id: randomUUID() } },
    token,
  );
  expect(create.body.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  expect(await platform.payments.prisma.refund.count({ where: { payment_intent_id: intent.id } })).toBe(0);
});
