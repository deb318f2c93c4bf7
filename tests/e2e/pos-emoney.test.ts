import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceToken, storeManagerToken } from "../support/device";
import { callJson, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

const PAYMENT = `id status amount bill_id payment_intent_id card_document_number approval_code
  payment_method { type provider brand }`;
const CREATE = `mutation ($input: CreatePosPaymentInput!) { createPosPayment(input: $input) { payment { ${PAYMENT} } } }`;
const RESULT = `mutation ($id: ID!, $input: CardResultInput!) { recordCardResult(id: $id, input: $input) { ${PAYMENT} } }`;
const BY_METHOD = `query ($store_id: Int) { posPayments(store_id: $store_id, method: EMONEY) {
  total_count nodes { id payment_method { type brand } } } }`;
const STORE_DAY = `query ($store_id: Int) { storeDay(store_id: $store_id) {
  totals { payment_method gross_amount refund_amount net_amount payment_count refund_count } } }`;

// E-money sales: the terminal's own reader takes the money and reports it, as the card app does (docs/decisions/pos.md,
// "E-money pays"), through REST and GraphQL; the brand is printed, counted per method, and refunds are whole.
describe("POS e-money payments", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  let terminal: string;
  let manager: string;
  let staffCode: string;
  let leaderCode: string;
  let leaderPin: string;
  let table = 0;

  const rest = (method: string, path: string, body?: unknown, token = terminal) =>
    callJson(platform.baseUrl, method, path, token, body);
  const graphql = async (query: string, variables: Record<string, unknown>, token = terminal) =>
    (await postGraphQL(platform.baseUrl, query, variables, token)).body;

  /** A billed order at a table of its own, at 10%: 2 x 980 + 480 = 2440, tax 244, total 2684. */
  async function billedOrder() {
    const order = await rest("POST", "/orders", {
      order_type: "dine_in",
      table_number: `E${++table}`,
      items: [
        { sequence: 1, item_name: "Ramen", quantity: 2, unit_price: 980 },
        { sequence: 2, item_name: "Gyoza", quantity: 1, unit_price: 480 },
      ],
    });
    const bill = await rest("POST", "/bills", { order_id: order.body.id, staff_code: staffCode, tax_percentage: 10 });
    expect(bill.body.total_amount).toBe(2684);
    return bill.body;
  }
  const billOf = async (id: string) => (await rest("GET", `/bills/${id}`)).body;
  const paymentsOf = (bill_id: string) => platform.pos.prisma.payment.findMany({ where: { bill_id } });
  const intentRow = (id: string) => platform.payments.prisma.paymentIntent.findUniqueOrThrow({ where: { id } });
  const emoney = (bill_id: string, brand: string | undefined = "transport_ic", amount = 2684) =>
    rest("POST", "/payments", { bill_id, amount, payment_method: { type: "EMONEY", brand } });
  const totalsOf = async (method: string) =>
    (await graphql(STORE_DAY, { store_id: store.id }, manager)).data.storeDay.totals.find(
      (line: { payment_method: string }) => line.payment_method === method,
    );

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    store = await seed(platform).store({ sells: true });
    const [device, staff, leader] = await Promise.all([
      seed(platform).device(store),
      seed(platform).user("STAFF", store),
      seed(platform).user("STAFF_LEADER", store),
    ]);
    terminal = await deviceToken(platform.baseUrl, device);
    manager = await storeManagerToken(platform.portal, store);
    staffCode = staff.login_id;
    leaderCode = leader.login_id;
    leaderPin = leader.pin!;
  });
  afterAll(() => platform?.close());

  it("runs a whole transport IC sale through REST: an external intent, the reader's result, a receipt with the brand", async () => {
    const before = await totalsOf("EMONEY");
    const bill = await billedOrder();
    const started = await emoney(bill.id);
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      status: "pending",
      amount: 2684,
      payment_method: { type: "EMONEY", provider: null, brand: "transport_ic" },
    });
    expect(await intentRow(started.body.payment_intent_id)).toMatchObject({
      status: "requires_action",
      processing_mode: "external",
      payment_method_types: ["emoney"],
      metadata: { emoney_brand: "transport_ic" },
    });

    const approved = await rest("PATCH", `/payments/${started.body.id}`, {
      amount: 2684,
      card_document_number: "00042",
      card_last_4: "1234",
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: "completed", card_document_number: "00042", approval_code: null });
    expect((await intentRow(started.body.payment_intent_id)).status).toBe("succeeded");
    expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 2684, remaining_amount: 0 });

    const printed = await fetch(`${platform.baseUrl}/payments/${started.body.id}/receipt`, {
      headers: { authorization: `Bearer ${terminal}`, accept: "text/plain" },
    });
    const text = await printed.text();
    expect(text).toMatch(/^E-MONEY Transport IC +¥2,684$/m);
    expect(text).toContain("**** **** **** 1234");
    const receipt = await rest("GET", `/payments/${started.body.id}/receipt`);
    expect(receipt.body.payment_method).toEqual({ type: "EMONEY", provider: null, brand: "transport_ic" });

    expect(await totalsOf("EMONEY")).toEqual({
      ...before,
      gross_amount: before.gross_amount + 2684,
      net_amount: before.net_amount + 2684,
      payment_count: before.payment_count + 1,
    });
  });

  it("refuses an e-money payment without a brand, with one it does not know, and a brand on another method", async () => {
    const bill = await billedOrder();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ type: "EMONEY" }, "payment_method.brand", "required"],
      [{ type: "EMONEY", brand: "octopus" }, "payment_method.brand", "enum"],
      [{ type: "CREDIT_CARD", brand: "quicpay" }, "payment_method.brand", "emoney_only"],
    ];
    for (const [payment_method, field, constraint] of cases) {
      const refused = await rest("POST", "/payments", { bill_id: bill.id, amount: 2684, payment_method });
      expect(refused.status, JSON.stringify(payment_method)).toBe(400);
      expect(refused.body).toMatchObject({ code: "invalid_request", details: { field, constraint } });
    }
    expect(await paymentsOf(bill.id)).toEqual([]);
    expect(await billOf(bill.id)).toMatchObject({ status: "pending", remaining_amount: 2684 });
  });

  it("replays an e-money payment under its Idempotency-Key, and refuses the key with another brand", async () => {
    const bill = await billedOrder();
    const send = async (brand: string) => {
      const response = await fetch(`${platform.baseUrl}/payments`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${terminal}`,
          "content-type": "application/json",
          "idempotency-key": `emoney-${bill.id}`,
        },
        body: JSON.stringify({ bill_id: bill.id, amount: 2684, payment_method: { type: "EMONEY", brand } }),
      });
      return {
        status: response.status,
        replayed: response.headers.get("idempotent-replayed"),
        body: (await response.json()) as { id: string },
      };
    };
    const first = await send("waon");
    expect(first.status).toBe(201);
    expect(await send("waon")).toMatchObject({ status: 201, replayed: "true", body: { id: first.body.id } });
    expect(await send("nanaco")).toMatchObject({ status: 409, body: { code: "idempotency_conflict" } });
    expect((await paymentsOf(bill.id)).map((row) => row.emoney_brand)).toEqual(["waon"]);
  });

  it("refuses a reader's result that lacks its slip, names a card brand, or charged another amount, changing nothing", async () => {
    const bill = await billedOrder();
    const { body: payment } = await emoney(bill.id, "waon");
    const cases: [Record<string, unknown>, string, string][] = [
      [{ approval_code: "A1" }, "card_document_number", "custom"],
      [{ card_document_number: "7", card_brand: "VISA" }, "card_brand", "unrecognized_keys"],
      [{ card_document_number: "7", amount: 2000 }, "amount", "payment_amount"],
    ];
    for (const [result, field, constraint] of cases) {
      const refused = await rest("PATCH", `/payments/${payment.id}`, result);
      expect(refused.status, JSON.stringify(result)).toBe(400);
      expect(refused.body).toMatchObject({ code: "invalid_request", details: { field, constraint } });
    }
    const [row] = await paymentsOf(bill.id);
    expect(row).toMatchObject({ status: "pending", card_document_number: null, emoney_brand: "waon" });
    expect((await intentRow(payment.payment_intent_id)).status).toBe("requires_action");
    expect(await billOf(bill.id)).toMatchObject({ status: "pending", paid_amount: 0 });

    const declined = await rest("PATCH", `/payments/${payment.id}`, {
      status: "declined",
      error_message: "balance too low",
    });
    expect(declined.body).toMatchObject({ status: "failed", failure_code: "declined" });
    expect((await intentRow(payment.payment_intent_id)).status).toBe("cancelled");
    expect(await billOf(bill.id)).toMatchObject({ status: "pending", remaining_amount: 2684 });
  });

  it("takes an iD payment through GraphQL, with its approval code, and lists payments by the EMONEY method", async () => {
    const bill = await billedOrder();
    const created = await graphql(CREATE, {
      input: { bill_id: bill.id, amount: 2684, payment_method: { type: "EMONEY", brand: "id" } },
    });
    const { payment } = created.data.createPosPayment;
    expect(payment).toMatchObject({ status: "pending", payment_method: { type: "EMONEY", brand: "id" } });
    const mismatch = await graphql(RESULT, { id: payment.id, input: { card_document_number: "1", amount: 1 } });
    expect(mismatch.errors?.[0].extensions).toMatchObject({
      code: "INVALID_REQUEST",
      details: { field: "amount", constraint: "payment_amount" },
    });
    expect(await billOf(bill.id)).toMatchObject({ status: "pending", paid_amount: 0 });
    const approved = await graphql(RESULT, {
      id: payment.id,
      input: { status: "success", amount: 2684, approval_code: "123456", card_document_number: "00043" },
    });
    expect(approved.data.recordCardResult).toMatchObject({ status: "completed", approval_code: "123456" });
    expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 2684 });

    const listed = (await graphql(BY_METHOD, { store_id: store.id }, manager)).data.posPayments;
    expect(listed.nodes).toContainEqual({ id: payment.id, payment_method: { type: "EMONEY", brand: "id" } });
    expect(
      listed.nodes.every((node: { payment_method: { type: string } }) => node.payment_method.type === "EMONEY"),
    ).toBe(true);
  });

  it("refunds an e-money payment whole only, recorded at the gateway, and counts the refund on its method's line", async () => {
    const bill = await billedOrder();
    const { body: payment } = await emoney(bill.id, "quicpay");
    await rest("PATCH", `/payments/${payment.id}`, { approval_code: "Q1", card_document_number: "00044" });
    const before = await totalsOf("EMONEY");
    const refund = (refund_amount: number) =>
      rest("POST", `/payments/${payment.id}/refund`, {
        refund_amount,
        reason: "returned",
        staff_code: leaderCode,
        staff_pin: leaderPin,
      });

    const part = await refund(1000);
    expect(part.status).toBe(400);
    expect(part.body).toMatchObject({
      code: "invalid_request",
      details: { field: "refund_amount", constraint: "whole_payment" },
    });
    expect(await platform.pos.prisma.posRefund.findMany({ where: { payment_id: payment.id } })).toEqual([]);

    const whole = await refund(2684);
    expect(whole.status).toBe(201);
    expect(whole.body).toMatchObject({ amount: 2684, status: "succeeded" });
    expect(whole.body.payment).toMatchObject({ status: "refunded", refund_amount: 2684 });
    expect(await billOf(bill.id)).toMatchObject({ status: "cancelled" });
    const refunds = await platform.payments.prisma.refund.findMany({
      where: { payment_intent_id: payment.payment_intent_id },
    });
    expect(refunds.map((row) => [row.amount, row.status])).toEqual([[2684, "succeeded"]]);
    expect(await totalsOf("EMONEY")).toEqual({
      ...before,
      refund_amount: before.refund_amount + 2684,
      net_amount: before.net_amount - 2684,
      refund_count: before.refund_count + 1,
    });
  });
});
