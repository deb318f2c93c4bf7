import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { signed } from "../support/gateway";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStorePartner, seed } from "../support/seed";

let platform: TestPlatform;
let partner: SeededStorePartner;
beforeAll(async () => {
  platform = await startTestPlatform({ demo: false });
  partner = await seed(platform).storePartner();
});
afterAll(() => platform?.close());

const intent = (overrides: Record<string, unknown> = {}) => ({
  amount: 2000,
  currency: "JPY",
  payment_method_types: ["credit_card"],
  merchant_ref_id: `idem-${randomUUID()}`,
  merchant_store_id: partner.store_code,
  ...overrides,
});
// Every request is signed at a second of its own: the same bytes under the same signature twice are a replay (401),
// so a client's retry is signed anew, as these are.
let lastSecond = 0;
const freshTimestamp = () => {
  lastSecond = Math.max(lastSecond + 1, Math.floor(Date.now() / 1000) - 200);
  return lastSecond;
};
const create = (body: unknown, key: string) =>
  signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", body, {
    timestamp: freshTimestamp(),
    headers: { "idempotency-key": key },
  });

it("replays the first create response, status and body, for the same key and request", async () => {
  const key = randomUUID();
  const body = intent();
  const first = await create(body, key);
  const again = await create(body, key);
  expect(first.status).toBe(201);
  expect(again.status).toBe(201);
  expect(again.body).toEqual(first.body);
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  const list = await signed(platform.baseUrl, partner, "GET", "/v1/payment_intents?limit=100");
  expect(list.body.filter((row: any) => row.merchant_ref_id === body.merchant_ref_id)).toHaveLength(1);
});

it("compares parameters, not bytes: the same body in another key order and spacing is replayed", async () => {
  const key = randomUUID();
  const metadata = { till: 3, shift: "early" };
  const body = intent({ metadata });
  const first = await create(body, key);
  const reordered = (value: object) => Object.fromEntries(Object.entries(value).reverse());
  const reserialised = JSON.stringify({ ...reordered(body), metadata: reordered(metadata) }, null, 2);
  expect(reserialised).not.toBe(JSON.stringify(body));
  const again = await create(reserialised, key);
  expect(again.status).toBe(201);
  expect(again.body).toEqual(first.body);
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  const changed = await create({ ...body, metadata: { till: 4, shift: "early" } }, key);
  expect(changed.status).toBe(409);
  expect(changed.body.code).toBe("idempotency_conflict");
});

it("answers 409 idempotency_conflict for the same key with a different request", async () => {
  const key = randomUUID();
  await create(intent(), key);
  const different = await create(intent(), key);
  expect(different.status).toBe(409);
  expect(different.body.code).toBe("idempotency_conflict");
});

it("scopes keys to the partner", async () => {
  const key = randomUUID();
  const neighbour = await platform.partners.createPartner("idempotency neighbour");
  const other = await platform.partners.issueApiKey(neighbour.id);
  await create(intent(), key);
  const theirs = await signed(platform.baseUrl, other, "GET", "/v1/payment_intents", undefined, {
    headers: { "idempotency-key": key },
  });
  expect(theirs.status).toBe(200);
});

it("creates exactly one intent for 50 concurrent requests with one key", async () => {
  const key = randomUUID();
  const body = intent();
  const responses = await Promise.all(Array.from({ length: 50 }, () => create(body, key)));
  const created = responses.filter((response) => response.status === 201);
  const others = responses.filter((response) => response.status !== 201);
  expect(new Set(created.map((response) => response.body.id)).size).toBe(1);
  for (const response of others) {
    expect(response.status).toBe(409);
    expect(response.body.code).toBe("idempotency_conflict");
  }
  const list = await signed(platform.baseUrl, partner, "GET", "/v1/payment_intents?limit=100");
  expect(list.body.filter((row: any) => row.merchant_ref_id === body.merchant_ref_id)).toHaveLength(1);
});

it("replays a capture and refuses the key on another intent's capture", async () => {
  const { body: first } = await create(intent(), randomUUID());
  const { body: second } = await create(intent(), randomUUID());
  const key = randomUUID();
  const capture = (id: string) =>
    signed(
      platform.baseUrl,
      partner,
      "POST",
      `/v1/payment_intents/${id}/capture`,
      { amount: 2000 },
      { timestamp: freshTimestamp(), headers: { "idempotency-key": key } },
    );
  const captured = await capture(first.id);
  const replay = await capture(first.id);
  expect(captured.status).toBe(200);
  expect(replay.status).toBe(200);
  expect(replay.body).toEqual(captured.body);
  expect(replay.body).toMatchObject({ id: first.id, status: "succeeded", amount: 2000, amount_received: 2000 });
  expect((await capture(second.id)).body.code).toBe("idempotency_conflict");
});
