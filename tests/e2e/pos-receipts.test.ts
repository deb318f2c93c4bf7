import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceToken, humanToken } from "../support/device";
import { call as callGateway } from "../support/gateway";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { operator, seedBranch } from "../support/portal-seed";
import { type SeededStore, seed } from "../support/seed";

// Receipts of a terminal's sales through REST (device token, unprefixed paths): JSON and printable text, the tax
// invoice variant, numbers given once per payment and unique per store and day.
describe("POS receipts", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  /** The sandbox QR provider's address, where a customer's payment is made. */
  let sandboxUrl: string;
  let terminal: string;
  let outsider: string;
  let staffCode: string;
  let leaderCode: string;
  /** A terminal\'s refund needs the approving leader\'s PIN besides the login id (issue 21). */
  let leaderPin: string;
  let table = 0;

  const send = (method: string, path: string, token?: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const response = await send(method, path, token, body);
    return { status: response.status, body: (await response.json()) as any };
  };

  /** An order at a table of its own, billed at 10%: 2 x 980 + 480 = 2440, tax 244, total 2684. */
  async function bill() {
    const order = await call("POST", "/orders", terminal, {
      order_type: "dine_in",
      table_number: `RC${++table}`,
      items: [
        { sequence: 1, item_name: "味噌ラーメン", quantity: 2, unit_price: 980 },
        { sequence: 2, item_name: "Gyoza", quantity: 1, unit_price: 480 },
      ],
    });
    expect(order.status).toBe(201);
    const made = await call("POST", "/bills", terminal, {
      order_id: order.body.id,
      staff_code: staffCode,
      tax_percentage: 10,
    });
    expect(made.status).toBe(201);
    return made.body;
  }

  async function cashSale() {
    const { id } = await bill();
    const paid = await call("POST", "/payments", terminal, {
      bill_id: id,
      amount: 2684,
      payment_method: { type: "CASH" },
      cash_received: 3000,
    });
    expect(paid.status).toBe(201);
    return paid.body;
  }

  const receipt = (paymentId: string, query = "", token = terminal) =>
    call("GET", `/payments/${paymentId}/receipt${query}`, token);

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    store = await seed(platform).store({ sells: true });
    sandboxUrl = seed(platform).providers().provider.base_url;
    terminal = await deviceToken(platform.baseUrl, await seed(platform).device(store));
    const other = await seedBranch(platform.portal);
    outsider = await humanToken(platform.portal, {
      role: "MERCHANT_ADMIN",
      psp_id: other.psp.id,
      merchant_id: other.merchant.id,
    });
    staffCode = (await seed(platform).user("STAFF", store)).login_id;
    const leader = await seed(platform).user("STAFF_LEADER", store);
    leaderCode = leader.login_id;
    leaderPin = leader.pin!;
  });
  afterAll(() => platform?.close());

  it("gives a cash sale's receipt as JSON, numbered once and the same on every read", async () => {
    const payment = await cashSale();
    const first = await receipt(payment.id);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      receipt_number: expect.stringMatching(/^R\d{8}-\d{4}$/),
      type: "receipt",
      payment_id: payment.id,
      store_id: store.id,
      issued_at: payment.completed_at,
      issuer: { store_name: store.name, name: store.merchant.name, registration_number: null },
      currency: "JPY",
      items: [
        { item_name: "味噌ラーメン", quantity: 2, unit_price: 980, subtotal: 1960, tax_rate: 10 },
        { item_name: "Gyoza", quantity: 1, unit_price: 480, subtotal: 480, tax_rate: 10 },
      ],
      split: null,
      subtotal: 2440,
      tax_amount: 244,
      total_amount: 2684,
      amount: 2684,
      tax_lines: [{ rate: 10, taxable_amount: 2440, tax_amount: 244 }],
      payment_method: { type: "CASH", provider: null },
      masked_card_number: null,
      cash_received: 3000,
      change_amount: 316,
      status: "completed",
      refund_amount: 0,
      net_amount: 2684,
    });
    const again = await call("GET", `/api/v1/payments/${payment.id}/receipt`, terminal);
    expect(again.body).toEqual(first.body);
    // Numbers are the store's, per business day, each given once: the next sale takes the next one.
    const next = await receipt((await cashSale()).id);
    const [day, number] = first.body.receipt_number.split("-");
    expect(next.body.receipt_number).toBe(`${day}-${String(Number(number) + 1).padStart(4, "0")}`);
    expect(await platform.pos.prisma.receipt.count({ where: { payment_id: payment.id } })).toBe(1);
  });

  it("prints fixed-width text for Accept: text/plain, 42 columns unless asked for another width", async () => {
    const payment = await cashSale();
    const number = (await receipt(payment.id)).body.receipt_number;
    for (const [query, width] of [
      ["", 42],
      ["?width=32", 32],
    ] as const) {
      const response = await send("GET", `/payments/${payment.id}/receipt${query}`, terminal, undefined, {
        accept: "text/plain",
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      const text = await response.text();
      const lines = text.trimEnd().split("\n");
      expect(lines).toContain("-".repeat(width));
      // A CJK character prints two columns wide.
      const columns = (line: string) => [...line].reduce((sum, char) => sum + (char.charCodeAt(0) > 0x2e80 ? 2 : 1), 0);
      expect(Math.max(...lines.map(columns))).toBe(width);
      expect(lines.find((line) => line.startsWith("TOTAL"))).toMatch(/ ¥2,684$/);
      expect(text).toContain(number);
      expect(text).toContain("味噌ラーメン");
      expect(lines.find((line) => line.startsWith("Change"))).toMatch(/ ¥316$/);
    }
    // JSON unless text is preferred.
    const json = await send("GET", `/payments/${payment.id}/receipt`, terminal, undefined, {
      accept: "application/json, text/plain;q=0.5",
    });
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    const narrow = await send("GET", `/payments/${payment.id}/receipt?width=8`, terminal, undefined, {
      accept: "text/plain",
    });
    expect(narrow.status).toBe(400);
    expect(await narrow.json()).toMatchObject({ code: "invalid_request", details: { field: "width" } });
  });

  it("shows a card only masked, and a refund once it is made", async () => {
    const { id: billId } = await bill();
    const started = await call("POST", "/payments", terminal, {
      bill_id: billId,
      amount: 2684,
      payment_method: { type: "CREDIT_CARD" },
    });
    expect(started.status).toBe(201);
    // No receipt before the payment completes.
    const pending = await receipt(started.body.id);
    expect(pending).toMatchObject({ status: 409, body: { code: "invalid_state", details: { status: "pending" } } });
    const approved = await call("PATCH", `/payments/${started.body.id}`, terminal, {
      approval_code: "A77",
      card_document_number: "SLIP-77",
      card_last_4: "4242",
      card_brand: "VISA",
    });
    expect(approved.body.status).toBe("completed");
    const card = await receipt(started.body.id);
    expect(card.body).toMatchObject({
      payment_method: { type: "CREDIT_CARD" },
      card_brand: "VISA",
      masked_card_number: "**** **** **** 4242",
      approval_code: "A77",
      cash_received: null,
    });
    const refunded = await call("POST", `/payments/${started.body.id}/refund`, terminal, {
      refund_amount: 684,
      reason: "cold ramen",
      staff_code: leaderCode,
      staff_pin: leaderPin,
    });
    expect(refunded.status).toBe(201);
    const after = await receipt(started.body.id);
    expect(after.body).toMatchObject({
      receipt_number: card.body.receipt_number,
      status: "completed",
      refund_amount: 684,
      net_amount: 2000,
    });
    const text = await (
      await send("GET", `/payments/${started.body.id}/receipt`, terminal, undefined, { accept: "text/plain" })
    ).text();
    expect(text).toContain("**** **** **** 4242");
    expect(text).toMatch(/Refunded +-¥684/);
  });

  it("numbers a QR payment's receipt when the gateway's event completes it", async () => {
    const { id: billId } = await bill();
    const qr = await call("POST", "/payments", terminal, {
      bill_id: billId,
      amount: 2684,
      payment_method: { type: "QR" },
    });
    const confirmed = await callGateway(
      platform.baseUrl,
      "POST",
      `/v1/payment_intents/${qr.body.payment_intent_id}/confirm`,
      { payment_token: qr.body.payment_token, payment_method_type: "qr_mpm", provider: "sandbox" },
    );
    expect(confirmed.status).toBe(200);
    const { provider_transaction_id } = await platform.payments.prisma.paymentIntent.findUniqueOrThrow({
      where: { id: qr.body.payment_intent_id },
    });
    await fetch(`${sandboxUrl}/sandbox/transactions/${provider_transaction_id}/pay`, { method: "POST" });
    // Waits for the receipt row the completing transaction writes, without reading through the API.
    const issuedRow = () => platform.pos.prisma.receipt.findUnique({ where: { payment_id: qr.body.id } });
    await expect.poll(issuedRow, { timeout: 20_000 }).not.toBeNull();
    const issued = await issuedRow();
    const row = await platform.pos.prisma.payment.findUniqueOrThrow({ where: { id: qr.body.id } });
    expect(issued).toMatchObject({ store_id: store.id, issued_at: row.completed_at });
    expect((await receipt(qr.body.id)).body).toMatchObject({
      receipt_number: issued!.receipt_number,
      payment_method: { type: "QR", provider: null },
    });
  });

  it("gives a tax invoice only with the issuer's registration number, with the tax per rate", async () => {
    const payment = await cashSale();
    const refused = await receipt(payment.id, "?type=tax_invoice");
    expect(refused).toMatchObject({
      status: 409,
      body: { code: "invalid_state", details: { field: "type", constraint: "registration_number" } },
    });
    await platform.portal.tenants.updateMerchant(operator, store.merchant_id, {
      legal_name: "Seeded Merchant K.K.",
      invoice_config: { registration_number: "T1234567890123" },
    });
    const invoice = await receipt(payment.id, "?type=tax_invoice");
    expect(invoice.status).toBe(200);
    expect(invoice.body).toMatchObject({
      type: "tax_invoice",
      issuer: { name: "Seeded Merchant K.K.", registration_number: "T1234567890123" },
      tax_lines: [{ rate: 10, taxable_amount: 2440, tax_amount: 244 }],
    });
    const text = await (
      await send("GET", `/payments/${payment.id}/receipt?type=tax_invoice`, terminal, undefined, {
        accept: "text/plain",
      })
    ).text();
    expect(text).toContain("TAX INVOICE");
    expect(text).toContain("Registration No. T1234567890123");
    expect((await receipt(payment.id, "?type=invoice")).status).toBe(400);
  });

  it("is not found for another merchant's admin or an unknown payment, and needs a token", async () => {
    const payment = await cashSale();
    expect((await call("GET", `/api/v1/payments/${payment.id}/receipt`, outsider)).status).toBe(404);
    expect((await receipt(randomUUID())).status).toBe(404);
    expect((await receipt("not-a-uuid")).status).toBe(404);
    expect((await call("GET", `/payments/${payment.id}/receipt`)).status).toBe(401);
  });
});
