import { businessDateOf } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceToken } from "../support/device";
import { logIn, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { confirmAndPayByQr } from "../support/sandbox-provider";
import { type SeededStore, seed } from "../support/seed";

const PAY = `mutation ($input: CreatePosPaymentInput!, $key: String) {
  createPosPayment(input: $input, idempotency_key: $key) {
    replayed payment { id amount tip_amount total_amount status payment_intent_id change_amount }
  } }`;
const CARD_RESULT = `mutation ($id: ID!, $input: CardResultInput!) { recordCardResult(id: $id, input: $input) {
  id status amount tip_amount total_amount } }`;
const STORE_DAY = `query ($store_id: Int, $date: String) { storeDay(store_id: $store_id, date: $date) {
  starts_at ends_at gross_amount tip_amount refund_amount net_amount payment_count csv
  totals { payment_method gross_amount tip_amount refund_amount net_amount payment_count } } }`;

// Tips (issue 38) through REST and GraphQL, by cash, card and QR: a tip is charged with the amount, never owed by
// the bill, outside the receipt's tax, counted in the store's day, and given back last by a refund.
describe("POS tips", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  let sandboxUrl: string;
  let terminal: string;
  let staffCode: string;
  let leader: { login_id: string; pin: string };
  let table = 0;

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${terminal}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, body: (text.startsWith("{") ? JSON.parse(text) : null) as any };
  };
  const graphql = async (query: string, variables: Record<string, unknown>) => {
    const { body } = await postGraphQL(platform.baseUrl, query, variables, terminal);
    return body as { data?: any; errors?: { extensions: any }[] };
  };

  /** A bill at 10% of its own table: 2 x 980 + 480 = 2440, tax 244, total 2684; by `as`, a terminal's token. */
  async function bill(as = terminal, staff_code = staffCode) {
    const by = { authorization: `Bearer ${as}` };
    const order = await call(
      "POST",
      "/orders",
      {
        order_type: "dine_in",
        table_number: `T${++table}`,
        items: [
          { sequence: 1, item_name: "Ramen", quantity: 2, unit_price: 980 },
          { sequence: 2, item_name: "Gyoza", quantity: 1, unit_price: 480 },
        ],
      },
      by,
    );
    const billed = await call("POST", "/bills", { order_id: order.body.id, staff_code, tax_percentage: 10 }, by);
    expect(billed.body.total_amount).toBe(2684);
    return billed.body.id as string;
  }
  const pay = (body: Record<string, unknown>, key?: string) =>
    call("POST", "/payments", body, key ? { "idempotency-key": key } : {});
  const CARD = { type: "CREDIT_CARD" };
  const billOf = async (id: string) => (await call("GET", `/bills/${id}`)).body;
  const intentOf = (id: string) => platform.payments.prisma.paymentIntent.findUniqueOrThrow({ where: { id } });
  const approve = (id: string) =>
    graphql(CARD_RESULT, { id, input: { approval_code: "A1", card_document_number: "SLIP-1", card_last_4: "4242" } });
  const refund = (paymentId: string, refund_amount: number) =>
    call("POST", `/payments/${paymentId}/refund`, {
      refund_amount,
      reason: "cold ramen",
      staff_code: leader.login_id,
      staff_pin: leader.pin,
    });
  /** The store's day a moment falls on: its business date in Asia/Tokyo (UTC+9). */
  const storeDay = async (at: Date) =>
    (await graphql(STORE_DAY, { store_id: store.id, date: businessDateOf(at) })).data.storeDay;

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    store = await seed(platform).store({ sells: true });
    sandboxUrl = seed(platform).providers().provider.base_url;
    terminal = await deviceToken(platform.baseUrl, await seed(platform).device(store));
    staffCode = (await seed(platform).user("STAFF", store)).login_id;
    const staffLeader = await seed(platform).user("STAFF_LEADER", store);
    leader = { login_id: staffLeader.login_id, pin: staffLeader.pin! };
  });
  afterAll(() => platform?.close());

  it("takes a cash tip through REST: change on amount + tip, the intent charges both, the bill owes none of it", async () => {
    const billId = await bill();
    for (const [body, field] of [
      [{ tip_amount: -1, cash_received: 3000 }, "tip_amount"],
      [{ tip_amount: 1.5, cash_received: 3000 }, "tip_amount"],
      [{ tip_amount: 300, cash_received: 2983 }, "cash_received"],
    ] as const) {
      const refused = await pay({ bill_id: billId, amount: 2684, payment_method: { type: "CASH" }, ...body });
      expect(refused, JSON.stringify(body)).toMatchObject({ status: 400, body: { details: { field } } });
    }
    expect(await billOf(billId)).toMatchObject({ status: "pending", paid_amount: 0 });

    const body = {
      bill_id: billId,
      amount: 2684,
      tip_amount: 300,
      payment_method: { type: "CASH" },
      cash_received: 3000,
    };
    const paid = await pay(body, `tip-${billId}`);
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({ amount: 2684, tip_amount: 300, total_amount: 2984, change_amount: 16 });
    expect(await intentOf(paid.body.payment_intent_id)).toMatchObject({ amount: 2984, status: "succeeded" });
    expect(await billOf(billId)).toMatchObject({ status: "paid", paid_amount: 2684, remaining_amount: 0 });
    const audited = await platform.pos.prisma.outboxEvent.findMany({
      where: { aggregate_id: `pos_payment:${paid.body.id}` },
    });
    expect(audited.map((row) => (row.payload as { metadata: object }).metadata)).toContainEqual(
      expect.objectContaining({ amount: 2684, tip_amount: 300 }),
    );
    // The same key replays with the same tip, and conflicts with another.
    expect((await pay(body, `tip-${billId}`)).body).toEqual(paid.body);
    const other = await pay({ ...body, tip_amount: 200 }, `tip-${billId}`);
    expect(other).toMatchObject({ status: 409, body: { code: "idempotency_conflict" } });
  });

  it("takes a card tip through GraphQL: the gateway captures amount + tip", async () => {
    const billId = await bill();
    const input = { bill_id: billId, amount: 2684, tip_amount: 500, payment_method: { type: "CREDIT_CARD" } };
    const started = (await graphql(PAY, { input })).data.createPosPayment.payment;
    expect(started).toMatchObject({ status: "pending", amount: 2684, tip_amount: 500, total_amount: 3184 });
    expect(await intentOf(started.payment_intent_id)).toMatchObject({ amount: 3184, status: "requires_action" });
    const approved = await approve(started.id);
    expect(approved.data.recordCardResult).toMatchObject({ status: "completed", total_amount: 3184 });
    expect(await intentOf(started.payment_intent_id)).toMatchObject({ amount: 3184, status: "succeeded" });
    expect(await billOf(billId)).toMatchObject({ status: "paid", paid_amount: 2684 });
    const refused = await graphql(PAY, { input: { ...input, tip_amount: -5 } });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ details: { field: "tip_amount" } });
  });

  it("takes a QR tip through REST: the customer pays amount + tip at the provider", async () => {
    const billId = await bill();
    const qr = await pay({ bill_id: billId, amount: 2684, tip_amount: 216, payment_method: { type: "QR" } });
    expect(qr.body).toMatchObject({ status: "pending", total_amount: 2900 });
    expect((await intentOf(qr.body.payment_intent_id)).amount).toBe(2900);
    // The customer pays what the QR shows, at the sandbox provider.
    await confirmAndPayByQr(platform.baseUrl, sandboxUrl, {
      id: qr.body.payment_intent_id,
      payment_token: { token: qr.body.payment_token },
    });
    const row = () => platform.pos.prisma.payment.findUniqueOrThrow({ where: { id: qr.body.id } });
    await expect.poll(async () => (await row()).status, { timeout: 20_000 }).toBe("completed");
    expect(await billOf(billId)).toMatchObject({ status: "paid", paid_amount: 2684 });
  });

  it("lets each split of a bill tip, by cash through REST and by card through GraphQL", async () => {
    const billId = await bill();
    const split = await call("POST", `/bills/${billId}/split`, { splits: [{ amount: 1684 }, { amount: 1000 }] });
    const [first, second] = split.body.splits as { id: string }[];
    const cash = await pay({
      bill_id: billId,
      split_id: first!.id,
      amount: 1684,
      tip_amount: 100,
      payment_method: { type: "CASH" },
      cash_received: 2000,
    });
    expect(cash.body).toMatchObject({ status: "completed", total_amount: 1784, change_amount: 216 });
    expect(await billOf(billId)).toMatchObject({ status: "partial", paid_amount: 1684, remaining_amount: 1000 });
    // A tip does not count against what the split still owes.
    const input = {
      bill_id: billId,
      split_id: second!.id,
      amount: 1000,
      tip_amount: 200,
      payment_method: { type: "CREDIT_CARD" },
    };
    const card = (await graphql(PAY, { input })).data.createPosPayment.payment;
    expect((await approve(card.id)).data.recordCardResult).toMatchObject({ status: "completed", total_amount: 1200 });
    const paid = await billOf(billId);
    expect(paid).toMatchObject({ status: "paid", paid_amount: 2684, remaining_amount: 0 });
    expect(paid.splits.map((each: { status: string }) => each.status)).toEqual(["paid", "paid"]);
  });

  it("captures a card's slip tip up to the ceiling a merchant admin set in the portal, once the portal has synced it", async () => {
    const shop = await seed(platform).store({ sells: true });
    const till = await deviceToken(platform.baseUrl, await seed(platform).device(shop));
    const cashier = (await seed(platform).user("STAFF", shop)).login_id;
    const admin = (await logIn(platform.baseUrl, await seed(platform).user("MERCHANT_ADMIN", shop))).access_token;
    const manager = (await logIn(platform.baseUrl, await seed(platform).user("STORE_MANAGER", shop))).access_token;
    const ceilingAtGateway = async () =>
      (await platform.payments.prisma.store.findUniqueOrThrow({ where: { id: shop.id } })).tip_ceiling_percent;
    const patch = (path: string, token: string, payment_config: unknown) =>
      call("PATCH", path, { payment_config }, { authorization: `Bearer ${token}` });

    // The merchant's default reaches its store with the next sync; a store with no key of its own takes it.
    const set = await patch(`/api/v1/merchants/${shop.merchant_id}`, admin, { tip_ceiling_percent: 10, note: "x" });
    expect(set.body.payment_config).toEqual({ tip_ceiling_percent: 10, note: "x" });
    await expect.poll(ceilingAtGateway).toBe(10);
    for (const bad of [101, -1, 12.5, "10"]) {
      const refused = await patch(`/api/v1/merchants/${shop.merchant_id}`, admin, { tip_ceiling_percent: bad });
      expect(refused, String(bad)).toMatchObject({
        status: 400,
        body: { code: "invalid_request", details: { field: "payment_config.tip_ceiling_percent" } },
      });
    }
    const store = await patch(`/api/v1/stores/${shop.id}`, admin, { tip_ceiling_percent: 101 });
    expect(store.body.details).toMatchObject({ field: "payment_config.tip_ceiling_percent" });
    const UPDATE_STORE = `mutation ($id: Int!, $input: UpdateStoreInput!) { updateStore(id: $id, input: $input) { id } }`;
    const input = { payment_config: { tip_ceiling_percent: 10.5 } };
    const graphqlRefusal = await postGraphQL(platform.baseUrl, UPDATE_STORE, { id: shop.id, input }, admin);
    expect((graphqlRefusal.body as any).errors[0].extensions).toMatchObject({
      code: "INVALID_REQUEST",
      details: { field: "payment_config.tip_ceiling_percent" },
    });
    // The payment configuration bounds what a card is captured for: not a store manager's to change.
    expect((await patch(`/api/v1/stores/${shop.id}`, manager, { tip_ceiling_percent: 100 })).status).toBe(403);
    const merchant = await call("GET", `/api/v1/merchants/${shop.merchant_id}`, undefined, {
      authorization: `Bearer ${admin}`,
    });
    expect(merchant.body.payment_config).toEqual({ tip_ceiling_percent: 10, note: "x" });
    expect(await ceilingAtGateway()).toBe(10);

    // 2,684 authorised: a 15 % tip (403) is above the ceiling, 10 % (268) is captured.
    const at = { authorization: `Bearer ${till}` };
    const billId = await bill(till, cashier);
    const card = (await call("POST", "/payments", { bill_id: billId, amount: 2684, payment_method: CARD }, at)).body;
    const slip = { approval_code: "A4", card_document_number: "SLIP-4", card_last_4: "4242" };
    const result = (added_tip_amount: number) =>
      call("PATCH", `/payments/${card.id}`, { ...slip, added_tip_amount }, at);
    expect(await result(403)).toMatchObject({
      status: 400,
      body: { code: "invalid_request", details: { field: "added_tip_amount", constraint: "tip_ceiling" } },
    });
    expect((await result(268)).body).toMatchObject({ status: "completed", tip_amount: 268, total_amount: 2952 });
    expect(await intentOf(card.payment_intent_id)).toMatchObject({ amount: 2684, amount_received: 2952 });
  });

  it("adds a tip on each split's card slip at capture, through REST and GraphQL; above the ceiling changes nothing", async () => {
    const billId = await bill();
    const split = await call("POST", `/bills/${billId}/split`, { splits: [{ amount: 1684 }, { amount: 1000 }] });
    const [first, second] = split.body.splits as { id: string }[];
    const slip = { approval_code: "A2", card_document_number: "SLIP-2", card_last_4: "4242" };
    // The first split by REST, with a tip at payment (100) and one added on the slip: the store's default ceiling is
    // 20 % of the authorised 1784, so at most 356 more.
    const card = (
      await pay({ bill_id: billId, split_id: first!.id, amount: 1684, tip_amount: 100, payment_method: CARD })
    ).body;
    const above = await call("PATCH", `/payments/${card.id}`, { ...slip, added_tip_amount: 357 });
    expect(above).toMatchObject({
      status: 400,
      body: { code: "invalid_request", details: { field: "added_tip_amount", constraint: "tip_ceiling" } },
    });
    expect(await platform.pos.prisma.payment.findUniqueOrThrow({ where: { id: card.id } })).toMatchObject({
      status: "pending",
      tip_amount: 100,
      added_tip_amount: 0,
      total_amount: 1784,
      approval_code: null,
      card_document_number: null,
    });
    expect(await intentOf(card.payment_intent_id)).toMatchObject({ status: "requires_action", amount_received: 0 });
    expect(await billOf(billId)).toMatchObject({ status: "pending", paid_amount: 0 });

    const tipped = await call("PATCH", `/payments/${card.id}`, { ...slip, added_tip_amount: 356 });
    expect(tipped.body).toMatchObject({ status: "completed", amount: 1684, tip_amount: 456, total_amount: 2140 });
    expect(await intentOf(card.payment_intent_id)).toMatchObject({ amount: 1784, amount_received: 2140 });
    expect(await billOf(billId)).toMatchObject({ status: "partial", paid_amount: 1684, remaining_amount: 1000 });

    // The second split by GraphQL, tipped on the slip only.
    const input = { bill_id: billId, split_id: second!.id, amount: 1000, payment_method: CARD };
    const other = (await graphql(PAY, { input })).data.createPosPayment.payment;
    const approved = await graphql(CARD_RESULT, {
      id: other.id,
      input: { ...slip, card_document_number: "SLIP-3", added_tip_amount: 150 },
    });
    expect(approved.data.recordCardResult).toMatchObject({ status: "completed", tip_amount: 150, total_amount: 1150 });
    expect(await billOf(billId)).toMatchObject({ status: "paid", paid_amount: 2684, remaining_amount: 0 });
    const receipt = await call("GET", `/payments/${other.id}/receipt`);
    expect(receipt.body).toMatchObject({ amount: 1000, tip_amount: 150, charged_amount: 1150 });
    // A refund gives the slip's tip back last, and the gateway refunds what it captured.
    expect((await refund(other.id, 1150)).body.payment).toMatchObject({ status: "refunded", refund_amount: 1150 });
  });

  it("prints the tip on the receipt outside the bill's tax", async () => {
    const billId = await bill();
    const paid = await pay({
      bill_id: billId,
      amount: 2684,
      tip_amount: 300,
      payment_method: { type: "CASH" },
      cash_received: 3000,
    });
    const receipt = await call("GET", `/payments/${paid.body.id}/receipt`);
    expect(receipt.status).toBe(200);
    expect(receipt.body).toMatchObject({
      total_amount: 2684,
      amount: 2684,
      tip_amount: 300,
      charged_amount: 2984,
      tax_amount: 244,
    });
    expect(receipt.body.tax_lines).toEqual([{ rate: 10, taxable_amount: 2440, tax_amount: 244 }]);
    const text = await call("GET", `/payments/${paid.body.id}/receipt`, undefined, { accept: "text/plain" });
    expect(text.text).toMatch(/Tip \(not taxed\) +¥300/);
    expect(text.text).toMatch(/Charged +¥2,984/);
    expect(text.text).toMatch(/Change +¥16/);
  });

  it("refunds a tipped payment from its amount first, the tip last", async () => {
    const billId = await bill();
    const paid = (
      await pay({
        bill_id: billId,
        amount: 2684,
        tip_amount: 300,
        payment_method: { type: "CASH" },
        cash_received: 2984,
      })
    ).body;
    const part = await refund(paid.id, 500);
    expect(part.status).toBe(201);
    expect(await billOf(billId)).toMatchObject({ status: "paid", paid_amount: 2184, refunded_amount: 500 });
    expect((await call("GET", `/payments/${paid.id}/refund-status`)).body).toMatchObject({
      amount: 2984,
      refund_amount: 500,
      refundable_amount: 2484,
    });
    expect(await refund(paid.id, 2485)).toMatchObject({ status: 400, body: { details: { field: "refund_amount" } } });
    // The rest: 2184 of the bill, then the 300 tip; the bill is given back whole and ends cancelled.
    const rest = await refund(paid.id, 2484);
    expect(rest.body.payment, JSON.stringify(rest.body)).toMatchObject({ status: "refunded", refund_amount: 2984 });
    expect(await billOf(billId)).toMatchObject({ status: "cancelled", paid_amount: 0, refunded_amount: 2684 });
    const atGateway = await platform.payments.prisma.refund.findMany({
      where: { payment_intent_id: paid.payment_intent_id },
    });
    expect(atGateway.map((r) => r.amount).sort()).toEqual([2484, 500]);
  });

  it("counts the day's tips in the store's day, per method and overall, and in its CSV", async () => {
    // The day of the QR sale (a run may cross midnight in Tokyo): what it counts is what completed within it.
    const qr = await platform.pos.prisma.payment.findFirstOrThrow({ where: { store_id: store.id, method_type: "QR" } });
    const day = await storeDay(qr.completed_at!);
    const within = { gte: new Date(day.starts_at), lt: new Date(day.ends_at) };
    const payments = await platform.pos.prisma.payment.findMany({
      where: { store_id: store.id, status: { in: ["completed", "refunded"] }, completed_at: within },
    });
    const refunds = await platform.pos.prisma.posRefund.findMany({
      where: { store_id: store.id, status: "succeeded", completed_at: within },
    });
    const sum = (
      rows: { total_amount?: number; tip_amount?: number; amount?: number }[],
      field: "total_amount" | "tip_amount" | "amount",
    ) => rows.reduce((total, row) => total + (row[field] ?? 0), 0);
    expect(day.payment_count).toBe(payments.length);
    expect(day.gross_amount).toBe(sum(payments, "total_amount"));
    expect(day.tip_amount).toBe(sum(payments, "tip_amount"));
    expect(day.tip_amount).toBeGreaterThanOrEqual(qr.tip_amount);
    expect(day.refund_amount).toBe(sum(refunds, "amount"));
    for (const total of day.totals) {
      const ofMethod = payments.filter((payment) => payment.method_type === total.payment_method);
      expect(total.tip_amount, total.payment_method).toBe(sum(ofMethod, "tip_amount"));
      expect(total.gross_amount, total.payment_method).toBe(sum(ofMethod, "total_amount"));
    }
    // The day's chart adds up to its gross: tips included, as the day counts them.
    const manager = (await logIn(platform.baseUrl, await seed(platform).user("STORE_MANAGER", store))).access_token;
    const hours = await postGraphQL(
      platform.baseUrl,
      "query ($store_id: Int!, $date: String) { salesOverview(store_id: $store_id, date: $date) { by_hour { amount } } }",
      { store_id: store.id, date: businessDateOf(qr.completed_at!) },
      manager,
    );
    expect(sum(hours.body.data.salesOverview.by_hour, "amount")).toBe(day.gross_amount);
    const lines = (day.csv as string).trim().split("\r\n");
    expect(lines[0]).toBe("Kind,ID,Date,Time,Payment Method,Amount,Tip,Carried Over");
    expect(lines.find((line) => line.includes(qr.id))).toMatch(/,QR,2900,216,no$/);
  });
});
