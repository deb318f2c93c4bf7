import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceToken, humanToken } from "../support/device";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

/** ESC/POS commands and a bidirectional override, as a probe typed them into an item name (issue 21). */
const hostile = "Tea\u0007\u001b[2J\u202e";
/** What a printer would take as a command: C0 controls but the newline, C1 controls, bidi overrides and isolates. */
const commands = (text: string) =>
  [...text].filter((char) => {
    const code = char.codePointAt(0)!;
    return (
      (code < 0x20 && code !== 0x0a) ||
      (code >= 0x7f && code <= 0x9f) ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069)
    );
  });

describe("text that can reach a receipt printer", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  /** A staff member of the store, who takes the bills. */
  let staffCode: string;
  let terminal: string;
  let admin: string;
  let table = 0;

  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const refused = (field: string) => ({
    status: 400,
    body: { code: "invalid_request", details: { field, constraint: "printable_text" } },
  });
  const order = (itemName: string) => ({
    order_type: "dine_in",
    table_number: `PT${++table}`,
    items: [{ sequence: 1, item_name: itemName, quantity: 1, unit_price: 500 }],
  });

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    store = await seed(platform).store();
    terminal = await deviceToken(platform.baseUrl, await seed(platform).device(store));
    staffCode = (await seed(platform).user("STAFF", store)).login_id;
    admin = await humanToken(platform.portal, {
      role: "MERCHANT_ADMIN",
      psp_id: store.psp_id,
      merchant_id: store.merchant_id,
    });
  }, 120_000);
  afterAll(() => platform?.close());

  it("refuses an order item's name with printer commands, on create and update, and writes nothing", async () => {
    const attempt = order(hostile);
    expect(await call("POST", "/api/v1/orders", terminal, attempt)).toMatchObject(refused("items.0.item_name"));
    const listed = await call("GET", `/api/v1/orders?table_number=${attempt.table_number}`, terminal);
    expect(listed.body).toEqual([]);
    // A carriage return prints over its line; a tab prints as a space.
    expect(await call("POST", "/api/v1/orders", terminal, order("Tea\rCoffee"))).toMatchObject(
      refused("items.0.item_name"),
    );
    const made = await call("POST", "/api/v1/orders", terminal, order("Tea\tset"));
    expect(made.status).toBe(201);

    const patch = { items: [{ sequence: 1, item_name: "Tea\u009b2J", quantity: 1, unit_price: 500 }] };
    expect(await call("PATCH", `/api/v1/orders/${made.body.id}`, terminal, patch)).toMatchObject(
      refused("items.0.item_name"),
    );
    const kept = await call("GET", `/api/v1/orders/${made.body.id}`, terminal);
    expect(kept.body.items.map((item: { item_name: string }) => item.item_name)).toEqual(["Tea\tset"]);
  });

  it("refuses store, merchant and customer names with them, on create and update, and writes nothing", async () => {
    const code = `PT-${randomUUID().slice(0, 8)}`;
    const created = { merchant_id: store.merchant_id, code, name: "Shop" };
    expect(await call("POST", "/api/v1/stores", admin, { ...created, name: "Shop\u001bp" })).toMatchObject(
      refused("name"),
    );
    const stores = await call("GET", `/api/v1/stores?merchant_id=${store.merchant_id}&limit=100`, admin);
    expect(stores.body.map((s: { code: string }) => s.code)).not.toContain(code);
    expect(
      await call("POST", "/api/v1/stores", admin, { ...created, receipt_settings: { footer: "\u202eyb" } }),
    ).toMatchObject(refused("receipt_settings"));
    expect(await call("PATCH", `/api/v1/stores/${store.id}`, admin, { name: "\u2066Shop" })).toMatchObject(
      refused("name"),
    );
    expect(
      await call("PATCH", `/api/v1/stores/${store.id}`, admin, { address: { street: "1-2\u0007" } }),
    ).toMatchObject(refused("address.street"));
    expect(commands((await call("GET", `/api/v1/stores/${store.id}`, admin)).body.name)).toEqual([]);

    const operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
    const merchant = { psp_id: store.psp_id, code, name: "Merchant\u001b@" };
    expect(await call("POST", "/api/v1/merchants", operator, merchant)).toMatchObject(refused("name"));
    expect(
      await call("PATCH", `/api/v1/merchants/${store.merchant_id}`, operator, { legal_name: "K.K.\u0085" }),
    ).toMatchObject(refused("legal_name"));
    const { legal_name } = (await call("GET", `/api/v1/merchants/${store.merchant_id}`, operator)).body;
    expect(commands(legal_name ?? "")).toEqual([]);

    const customerName = `Customer ${code}\u001b`;
    expect(await call("POST", "/api/v1/customers", admin, { name: customerName })).toMatchObject(refused("name"));
    const found = await call("GET", `/api/v1/customers?name=${encodeURIComponent(`Customer ${code}`)}`, admin);
    expect(found.body).toEqual([]);
    const customer = await call("POST", "/api/v1/customers", admin, {
      name: `Customer ${code}`,
      email: `${code.toLowerCase()}@example.com`,
    });
    expect(customer.status).toBe(201);
    expect(
      await call("PATCH", `/api/v1/customers/${customer.body.id}`, admin, { name_kana: "カ\u0007" }),
    ).toMatchObject(refused("name_kana"));
  });

  it("prints a receipt without them from rows written before the rule", async () => {
    const made = await call("POST", "/api/v1/orders", terminal, order("Tea"));
    const bill = await call("POST", "/api/v1/bills", terminal, {
      order_id: made.body.id,
      staff_code: staffCode,
      tax_percentage: 10,
    });
    expect(bill.status).toBe(201);
    // Old data, as the probe left it: written straight into the tables.
    await platform.pos.prisma.orderItem.updateMany({ where: { order_id: made.body.id }, data: { item_name: hostile } });
    await platform.portal.prisma.store.update({
      where: { id: store.id },
      data: { name: "Corner\u001bp\u0019 Store\u2067", receipt_settings: { footer: "Bye\u0007\u202e" } },
    });
    const paid = await call("POST", "/api/v1/payments", terminal, {
      bill_id: bill.body.id,
      amount: bill.body.total_amount,
      payment_method: { type: "CASH" },
      cash_received: bill.body.total_amount,
    });
    expect(paid.status).toBe(201);

    const response = await fetch(`${platform.baseUrl}/api/v1/payments/${paid.body.id}/receipt`, {
      headers: { authorization: `Bearer ${terminal}`, accept: "text/plain" },
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("Tea[2J");
    expect(text).toContain("Cornerp Store");
    expect(text).toContain("Bye");
    expect(commands(text)).toEqual([]);
  });
});
