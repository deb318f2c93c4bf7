import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, signed } from "../support/gateway";
import { movableClock } from "../support/payments";
import { inProcessOnly, logIn, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, type SeededStorePartner, seed } from "../support/seed";

const clock = movableClock();
let moved = 0;
const advance = (ms: number) => {
  clock.advance(ms);
  moved += ms;
};

let platform: TestPlatform;
/** The store the intents are for, and the POS partner's key that signs for it. */
let home: SeededStore;
let partner: SeededStorePartner;
beforeAll(async () => {
  platform = await startTestPlatform({ clock, demo: false });
  home = await seed(platform).store({ sells: true });
  partner = await seed(platform).storePartner(home);
});
afterAll(() => platform?.close());
afterEach(() => {
  clock.advance(-moved);
  moved = 0;
});

const body = (overrides: Record<string, unknown> = {}) => ({
  amount: 1500,
  currency: "JPY",
  payment_method_types: ["qr_mpm", "qr_cpm"],
  merchant_ref_id: `order-${randomUUID()}`,
  merchant_store_id: partner.store_code,
  ...overrides,
});
const create = (overrides: Record<string, unknown> = {}) =>
  signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", body(overrides));
const retrieve = (id: string, token?: string) =>
  call(platform.baseUrl, "GET", `/v1/payment_intents/${id}${token === undefined ? "" : `?payment_token=${token}`}`);
const cancel = (id: string, token: string) =>
  call(platform.baseUrl, "POST", `/v1/payment_intents/${id}/cancel`, { payment_token: token });
const retrieveLedger = (id: string, token: string) =>
  call(platform.baseUrl, "GET", `/v1/payment_intents/${id}/transactions?payment_token=${token}`);
type LedgerRow = { type: string; amount: number };
const capture = (id: string, payload: unknown = {}) =>
  signed(platform.baseUrl, partner, "POST", `/v1/payment_intents/${id}/capture`, payload);

describe("create", () => {
  it("answers 201 with the spec's fields and a client-shaped payment token", async () => {
    const response = await create();
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(
      [
        "id",
        "status",
        "amount",
        "currency",
        "payment_method_types",
        "merchant_ref_id",
        "merchant_store_id",
        "payment_token",
        "created_at",
        "expires_at",
      ].sort(),
    );
    expect(response.body).toMatchObject({
      status: "requires_payment_method",
      amount: 1500,
      currency: "JPY",
      payment_method_types: ["qr_mpm", "qr_cpm"],
      merchant_store_id: partner.store_code,
      payment_token: { token: expect.any(String), payment_intent_id: response.body.id, expires_in: 300 },
    });
    expect(Date.parse(response.body.expires_at) - Date.parse(response.body.created_at)).toBe(30 * 60_000);
  });

  it("accepts payment_methods_types and payment_method_type with processing_mode", async () => {
    const variant = await create({ payment_method_types: undefined, payment_methods_types: ["qr_cpm"] });
    expect(variant.status).toBe(201);
    expect(variant.body.payment_method_types).toEqual(["qr_cpm"]);
    const card = await create({
      payment_method_types: undefined,
      payment_method_type: "credit_card",
      processing_mode: "external",
    });
    expect(card.body).toMatchObject({ status: "requires_action", payment_method_types: ["credit_card"] });
    const emoney = await create({ payment_method_types: undefined, payment_method_type: "emoney" });
    expect(emoney.body).toMatchObject({ status: "requires_action", payment_method_types: ["emoney"] });
    const cash = await create({
      payment_method_types: undefined,
      payment_method_type: "cash",
      processing_mode: "manual",
    });
    expect(cash.body.status).toBe("succeeded");
  });

  it("finds the store by id as well as by code, and refuses unknown stores", async () => {
    expect((await create({ merchant_store_id: String(home.id) })).status).toBe(201);
    const unknown = await create({ merchant_store_id: "no-such-store" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toMatchObject({ field: "merchant_store_id", constraint: "unknown_store" });
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ["amount 0", { amount: 0 }, "amount"],
    ["negative amount", { amount: -100 }, "amount"],
    ["fractional amount", { amount: 10.5 }, "amount"],
    ["amount as a string", { amount: "1500" }, "amount"],
    ["missing amount", { amount: undefined }, "amount"],
    ["amount above the maximum", { amount: 100_000_001 }, "amount"],
    ["unknown currency", { currency: "XXX" }, "currency"],
    ["currency not a string", { currency: 392 }, "currency"],
    ["missing currency", { currency: undefined }, "currency"],
    ["unknown method", { payment_method_types: ["bitcoin"] }, "payment_method_types.0"],
    ["empty methods", { payment_method_types: [] }, "payment_method_types"],
    ["methods not an array", { payment_method_types: "qr_mpm" }, "payment_method_types"],
    ["unknown single method", { payment_method_type: "cheque" }, "payment_method_type"],
    ["single method outside the list", { payment_method_type: "cash" }, "payment_method_type"],
    ["unknown mode", { processing_mode: "instant" }, "processing_mode"],
    [
      "cash with pgw_processed",
      { payment_method_types: ["cash"], processing_mode: "pgw_processed" },
      "processing_mode",
    ],
    ["QR with manual", { processing_mode: "manual" }, "processing_mode"],
    [
      "card with pgw_processed",
      { payment_method_types: undefined, payment_method_type: "credit_card", processing_mode: "pgw_processed" },
      "processing_mode",
    ],
    [
      "e-money with pgw_processed",
      { payment_method_types: undefined, payment_method_type: "emoney", processing_mode: "pgw_processed" },
      "processing_mode",
    ],
    ["e-money beside QR without a mode", { payment_method_types: ["emoney", "qr_mpm"] }, "processing_mode"],
    ["missing merchant_ref_id", { merchant_ref_id: undefined }, "merchant_ref_id"],
    ["empty merchant_ref_id", { merchant_ref_id: "  " }, "merchant_ref_id"],
    ["overlong merchant_ref_id", { merchant_ref_id: "x".repeat(256) }, "merchant_ref_id"],
    ["metadata not an object", { metadata: ["a"] }, "metadata"],
    ["expiry of 0 minutes", { expires_in_minutes: 0 }, "expires_in_minutes"],
    ["expiry beyond a day", { expires_in_minutes: 1441 }, "expires_in_minutes"],
  ];
  it.each(invalid)("answers 400 naming the field for %s", async (_, overrides, field) => {
    const response = await create(overrides);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_request", details: { field } });
  });

  it("says what the typed GraphQL input refused in the REST words, naming no GraphQL type", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ payment_method_types: "qr_mpm" }, "payment_method_types", "type"],
      [{ amount: "1500" }, "amount", "type"],
      [{ processing_mode: "instant" }, "processing_mode", "enum"],
      [{ metadata: ["a"] }, "metadata", "type"],
      [{ currency: undefined }, "currency", "required"],
      [{ tip: 100 }, "tip", "unknown_field"],
    ];
    for (const [overrides, field, constraint] of cases) {
      const response = await create(overrides);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: "invalid_request", details: { field, constraint } });
      expect(response.body.message).not.toMatch(/Input|Variable|JSONObject|\$input/);
    }
    expect((await capture("pi_x", { amount: 10.5 })).body).toMatchObject({
      code: "invalid_request",
      details: { field: "amount", constraint: "type" },
    });
  });

  it("refuses a duplicate merchant_ref_id of the merchant with 409 conflict", async () => {
    const first = await create();
    expect(first.status).toBe(201);
    // Another request (its amount differs) with the same reference: the very same bytes would be a replay, 401.
    const again = await create({
      merchant_ref_id: (await retrieve(first.body.id, first.body.payment_token.token)).body.merchant_ref_id,
      amount: 1600,
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "conflict", details: { field: "merchant_ref_id" } });
  });
});

describe("payment token", () => {
  it("opens its own intent through the query, the body or a bearer header", async () => {
    const { body: created } = await create();
    const token = created.payment_token.token;
    const read = await retrieve(created.id, token);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.id, status: "requires_payment_method", amount: 1500 });
    const bearer = await call(platform.baseUrl, "GET", `/v1/payment_intents/${created.id}`, undefined, {
      authorization: `Bearer ${token}`,
    });
    expect(bearer.status).toBe(200);
  });

  // In-process only: moves the platform's clock.
  inProcessOnly("answers 401 invalid_token for a missing, wrong, expired or other intent's token", async () => {
    const { body: mine } = await create();
    const { body: other } = await create();
    for (const response of [
      await retrieve(mine.id),
      await retrieve(mine.id, "pt_wrong"),
      await retrieve(mine.id, other.payment_token.token),
      await cancel(mine.id, other.payment_token.token),
      await retrieve("pi_00000000000000000000000000", mine.payment_token.token),
    ]) {
      expect(response.status).toBe(401);
      expect(response.body.code).toBe("invalid_token");
    }
    advance(301_000);
    const expired = await retrieve(mine.id, mine.payment_token.token);
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe("invalid_token");
  });
});

describe("states", () => {
  it("cancels an open intent with its token, once", async () => {
    const { body: created } = await create();
    const cancelled = await cancel(created.id, created.payment_token.token);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ id: created.id, status: "cancelled" });
    const again = await cancel(created.id, created.payment_token.token);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("invalid_state");
  });

  it("refuses to cancel a succeeded cash intent and to capture a cancelled one", async () => {
    const { body: cash } = await create({ payment_method_types: ["cash"] });
    expect(cash.status).toBe("succeeded");
    const cancelCash = await cancel(cash.id, cash.payment_token.token);
    expect(cancelCash.status).toBe(409);
    expect(cancelCash.body.code).toBe("invalid_state");

    const { body: card } = await create({ payment_method_types: ["credit_card"] });
    await cancel(card.id, card.payment_token.token);
    const captureCancelled = await capture(card.id);
    expect(captureCancelled.status).toBe(409);
    expect(captureCancelled.body.code).toBe("invalid_state");
  });

  it("answers a move the intent's state machine lacks with a 409 naming the current state and the event", async () => {
    const { body: cash } = await create({ payment_method_types: ["cash"] });
    const cancelCash = await cancel(cash.id, cash.payment_token.token);
    expect(cancelCash).toMatchObject({
      status: 409,
      body: { code: "invalid_state", details: { status: "succeeded", event: "cancel" } },
    });
    expect(cancelCash.body.message).toMatch(/succeeded.*cancel/);

    const { body: card } = await create({ payment_method_types: ["credit_card"] });
    await cancel(card.id, card.payment_token.token);
    const captureCancelled = await capture(card.id);
    expect(captureCancelled).toMatchObject({
      status: 409,
      body: { code: "invalid_state", details: { status: "cancelled", event: "capture" } },
    });
    expect(await retrieve(card.id, card.payment_token.token)).toMatchObject({ body: { status: "cancelled" } });
  });

  it("captures an external intent for its own amount only", async () => {
    const { body: card } = await create({ payment_method_types: ["credit_card"] });
    const wrongAmount = await capture(card.id, { amount: 1499 });
    expect(wrongAmount.status).toBe(400);
    expect(wrongAmount.body.details).toMatchObject({ field: "amount", constraint: "equals_intent_amount" });
    const captured = await capture(card.id, { amount: 1500 });
    expect(captured.status).toBe(200);
    expect(captured.body).toEqual({
      id: card.id,
      status: "succeeded",
      amount: 1500,
      currency: "JPY",
      amount_capturable: 0,
      amount_received: 1500,
      captured_at: expect.any(String),
    });
    expect((await capture(card.id)).body.code).toBe("invalid_state");
  });

  const ledgerOf = async (card: { id: string; payment_token: { token: string } }) =>
    (await retrieveLedger(card.id, card.payment_token.token)).body.map(({ type, amount }: LedgerRow) => [type, amount]);

  it("captures a tip up to the store's ceiling (20 % by default), with the authorisation and capture rows", async () => {
    const { body: card } = await create({ payment_method_types: ["credit_card"] });
    expect((await retrieve(card.id, card.payment_token.token)).body).toMatchObject({ amount_capturable: 1800 });
    const above = await capture(card.id, { amount_to_capture: 1801 });
    expect(above).toMatchObject({
      status: 400,
      body: { code: "invalid_request", details: { field: "amount_to_capture", constraint: "tip_ceiling" } },
    });
    expect((await capture(card.id, { amount: 1500, amount_to_capture: 1600 })).status).toBe(400);
    const unchanged = await retrieve(card.id, card.payment_token.token);
    expect(unchanged.body).toMatchObject({ status: "requires_action", amount_capturable: 1800, amount_received: 0 });
    expect(await ledgerOf(card)).toEqual([]);

    const tipped = await capture(card.id, { amount_to_capture: 1800 });
    expect(tipped.body).toMatchObject({
      status: "succeeded",
      amount: 1500,
      amount_capturable: 0,
      amount_received: 1800,
    });
    expect(await ledgerOf(card)).toEqual([
      ["authorized", 1500],
      ["captured", 1800],
    ]);
    const refund = (amount: number) =>
      signed(platform.baseUrl, partner, "POST", `/v1/payment_intents/${card.id}/refund`, { amount, reason: "tip" });
    expect((await refund(1801)).body.details).toMatchObject({ field: "amount", constraint: "refundable_amount" });
    expect((await refund(1800)).status).toBe(201);
  });

  it("captures less than the amount and releases the rest; a store without a ceiling takes no tip", async () => {
    const { body: card } = await create({ payment_method_types: ["credit_card"] });
    const partial = await capture(card.id, { amount_to_capture: 1200 });
    expect(partial.body).toMatchObject({ status: "succeeded", amount: 1500, amount_received: 1200 });
    expect(await ledgerOf(card)).toEqual([
      ["authorized", 1500],
      ["captured", 1200],
      ["released", 300],
    ]);
    await platform.payments.prisma.store.update({ where: { id: home.id }, data: { tip_ceiling_percent: 0 } });
    try {
      const { body: untipped } = await create({ payment_method_types: ["credit_card"] });
      const refused = await capture(untipped.id, { amount_to_capture: 1501 });
      expect(refused.body).toMatchObject({ code: "invalid_request", details: { field: "amount_to_capture" } });
      expect(refused.body.message).toContain("no tip");
      expect((await capture(untipped.id, { amount_to_capture: 1500 })).body.amount_received).toBe(1500);
      expect(await ledgerOf(untipped)).toEqual([["captured", 1500]]);
    } finally {
      await platform.payments.prisma.store.update({ where: { id: home.id }, data: { tip_ceiling_percent: 20 } });
    }
  });

  it("refuses to capture a QR intent and an unknown one", async () => {
    const { body: qr } = await create();
    expect((await capture(qr.id)).body.code).toBe("invalid_state");
    const unknown = await capture("pi_00000000000000000000000000");
    expect(unknown.status).toBe(404);
  });

  // In-process only: moves the platform's clock.
  inProcessOnly("reads an expired intent as cancelled with failure_code expired and refuses to act on it", async () => {
    const { body: qr } = await create({ expires_in_minutes: 1 });
    const { body: card } = await create({ expires_in_minutes: 1, payment_method_types: ["credit_card"] });
    advance(61_000);
    const read = await retrieve(qr.id, qr.payment_token.token);
    expect(read.body).toMatchObject({ status: "cancelled", failure_code: "expired" });
    const cancelExpired = await cancel(qr.id, qr.payment_token.token);
    expect(cancelExpired.status).toBe(409);
    expect(cancelExpired.body.code).toBe("intent_expired");
    const captureExpired = await capture(card.id);
    expect(captureExpired.status).toBe(409);
    expect(captureExpired.body.code).toBe("intent_expired");
  });
});

describe("list", () => {
  it("lists the partner's intents newest first with filters and a bounded page", async () => {
    const ref = `list-${randomUUID()}`;
    const { body: created } = await create({ merchant_ref_id: ref, payment_method_types: ["credit_card"] });
    const list = await signed(platform.baseUrl, partner, "GET", "/v1/payment_intents?status=requires_action&limit=100");
    expect(list.status).toBe(200);
    expect(list.body.length).toBeLessThanOrEqual(100);
    expect(list.body.every((intent: any) => intent.status === "requires_action")).toBe(true);
    expect(list.body[0]).toMatchObject({ id: created.id, merchant_ref_id: ref, processing_mode: "external" });
    const byStore = await signed(platform.baseUrl, partner, "GET", "/v1/payment_intents?merchant_store_id=nowhere");
    expect(byStore.body).toEqual([]);
    const page = await signed(platform.baseUrl, partner, "GET", "/v1/payment_intents?limit=1&offset=1");
    expect(page.body).toHaveLength(1);
    for (const query of ["limit=101", "limit=0", "limit=ten", "offset=-1", "status=paid"]) {
      const bad = await signed(platform.baseUrl, partner, "GET", `/v1/payment_intents?${query}`);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe("invalid_request");
      expect(bad.body.details.field).toBe(query.split("=")[0]);
    }
    const paid = await signed(platform.baseUrl, partner, "GET", "/v1/payment_intents?status=paid");
    expect(paid.body.details).toEqual({ field: "status", constraint: "enum" });
  });

  it("shows another partner nothing of this partner's intents or stores", async () => {
    const otherPartner = await platform.partners.createPartner("other partner");
    const other = await platform.partners.issueApiKey(otherPartner.id);
    const { body: mine } = await create({ payment_method_types: ["credit_card"] });
    const list = await signed(platform.baseUrl, other, "GET", "/v1/payment_intents");
    expect(list.body).toEqual([]);
    const stolen = await signed(platform.baseUrl, other, "POST", `/v1/payment_intents/${mine.id}/capture`, {});
    expect(stolen.status).toBe(404);
    const foreignStore = await signed(
      platform.baseUrl,
      other,
      "POST",
      "/v1/payment_intents",
      body({
        merchant_store_id: String(home.id),
      }),
    );
    // Answered as a store that does not exist: a partner learns nothing of which store ids there are.
    expect(foreignStore.status).toBe(400);
    expect(foreignStore.body.details).toEqual({ field: "merchant_store_id", constraint: "unknown_store" });
  });

  it("keeps Store.payment_intents_count counting the store's intents", async () => {
    const query = `query($id: Int!) { store(id: $id) { payment_intents_count } }`;
    const { access_token } = await logIn(platform.baseUrl, await seed(platform).user("STAFF", home));
    const count = async () =>
      (await postGraphQL(platform.baseUrl, query, { id: home.id }, access_token)).body.data.store.payment_intents_count;
    const before = await count();
    await create();
    const after = await count();
    expect(after).toBe(before + 1);
  });
});

describe("sync", () => {
  const sync = (payload: unknown) => signed(platform.baseUrl, partner, "POST", "/v1/sync/merchants", payload);
  const ids = () => {
    const base = 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
    return { merchant: base, store: base + 1 };
  };

  it("upserts variant A, then variant B of the same ids without duplicates", async () => {
    const { merchant, store } = ids();
    const variantA = {
      merchants: [
        {
          id: merchant,
          name: "Sync Merchant",
          stores: [
            {
              id: store,
              name: "Sync Store",
              payment_processor_configs: [
                { provider: "PayPay", is_active: true, credentials: { merchant_id: "pp-1" } },
              ],
            },
          ],
        },
      ],
    };
    const first = await sync(variantA);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ synced_merchants: 1, synced_stores: 1 });
    expect(JSON.stringify(first.body)).not.toContain("pp-1");

    const code = `SYNC-${store}`;
    const variantB = {
      client_partner_id: partner.client_partner_id,
      merchants: [
        {
          merchant_id: merchant,
          merchant_code: "SYNC",
          stores: [
            {
              store_id: store,
              store_code: code,
              tip_ceiling_percent: 10,
              provider_configs: [{ provider_code: "paypay", credentials: { api_key: "k" }, is_active: true }],
            },
          ],
        },
      ],
    };
    expect((await sync(variantB)).body).toEqual({ synced_merchants: 1, synced_stores: 1 });
    // The same body again, signed anew: the same signature twice would be a replay.
    const again = await signed(platform.baseUrl, partner, "POST", "/v1/sync/merchants", variantB, {
      timestamp: Math.floor(Date.now() / 1000) - 10,
    });
    expect(again.body).toEqual({ synced_merchants: 1, synced_stores: 1 });
    const created = await create({ merchant_store_id: code, payment_method_types: ["credit_card"] });
    expect(created.status).toBe(201);
    // The synced tip ceiling: 10 % above the amount.
    expect((await retrieve(created.body.id, created.body.payment_token.token)).body.amount_capturable).toBe(1650);
    const listed = await signed(platform.baseUrl, partner, "GET", `/v1/payment_intents?merchant_store_id=${code}`);
    expect(listed.body).toEqual([expect.objectContaining({ merchant_id: merchant, store_id: store })]);
  });

  it("refuses another partner's id in the body and a malformed body, naming the field", async () => {
    const foreign = await sync({ client_partner_id: partner.client_partner_id + 1000, merchants: [] });
    expect(foreign.status).toBe(403);
    const badStore = await sync({ merchants: [{ merchant_id: ids().merchant, stores: [{ store_id: "x" }] }] });
    expect(badStore.status).toBe(400);
    expect(badStore.body.details.field).toBe("merchants.0.stores.0.store_id");
    const ceiling = await sync({
      merchants: [{ merchant_id: ids().merchant, stores: [{ store_id: ids().store, tip_ceiling_percent: 101 }] }],
    });
    expect(ceiling.body.details).toMatchObject({
      field: "merchants.0.stores.0.tip_ceiling_percent",
      constraint: "range",
    });
    const missing = await sync({});
    expect(missing.body.details.field).toBe("merchants");
  });
});
