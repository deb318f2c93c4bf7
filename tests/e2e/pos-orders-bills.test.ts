import { randomUUID } from "node:crypto";
import { idempotencyRequest, parseInput } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderCreate } from "../../subgraphs/pos/src/modules/orders/order.inputs";
import { deviceToken, humanToken } from "../support/device";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { seedBranch } from "../support/portal-seed";
import { type SeededDevice, type SeededStore, seed } from "../support/seed";

// Orders and bills through REST, as a terminal (device token, unprefixed paths) and as portal users (/api/v1).
describe("POS orders and bills", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  let device: SeededDevice;
  let terminal: string;
  let manager: string;
  let pspAdmin: string;
  let outsider: string;
  let staffCode: string;
  let table = 0;

  const call = async (method: string, path: string, token: string | undefined, body?: unknown, key?: string) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(key === undefined ? {} : { "idempotency-key": key }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };

  const items = [
    { sequence: 1, item_name: "Ramen", quantity: 2, unit_price: 980 },
    { sequence: 2, item_name: "Gyoza", quantity: 1, unit_price: 480 },
    { sequence: 3, item_name: "Beer", quantity: 3, unit_price: 550 },
  ];

  /** A fresh dine-in order at a table of its own, taken by the terminal. */
  async function order(body: Record<string, unknown> = {}) {
    const created = await call("POST", "/orders", terminal, {
      order_type: "dine_in",
      table_number: `T${++table}`,
      items,
      ...body,
    });
    expect(created.status).toBe(201);
    return created.body;
  }

  async function bill(orderId: string, tax_percentage = 10) {
    const created = await call("POST", "/bills", terminal, {
      order_id: orderId,
      staff_code: staffCode,
      tax_percentage,
    });
    expect(created.status).toBe(201);
    return created.body;
  }

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    store = await seed(platform).store();
    device = await seed(platform).device(store);
    terminal = await deviceToken(platform.baseUrl, device);
    const place = { psp_id: store.psp_id, merchant_id: store.merchant_id, store_id: store.id };
    manager = await humanToken(platform.portal, { role: "STORE_MANAGER", ...place });
    pspAdmin = await humanToken(platform.portal, { role: "PSP_ADMIN", psp_id: store.psp_id });
    const other = await seedBranch(platform.portal);
    outsider = await humanToken(platform.portal, {
      role: "MERCHANT_ADMIN",
      psp_id: other.psp.id,
      merchant_id: other.merchant.id,
    });
    staffCode = (await seed(platform).user("STAFF", store)).login_id;
  });
  afterAll(() => platform?.close());

  it("takes an order with the totals computed by the server and a readable daily number", async () => {
    const created = await order({ discount_amount: 100 });
    expect(created).toMatchObject({
      store_id: store.id,
      merchant_id: store.merchant_id,
      device_id: device.id,
      order_type: "dine_in",
      status: "open",
      subtotal: 4090,
      discount_amount: 100,
      tax_amount: 0,
      total_amount: 3990,
      bill_id: null,
    });
    expect(created.order_number).toMatch(/^\d{8}-\d{4}$/);
    expect(created.items.map((item: { subtotal: number }) => item.subtotal)).toEqual([1960, 480, 1650]);
    const read = await call("GET", `/api/v1/orders/${created.id}`, manager);
    expect({ status: read.status, body: read.body }).toEqual({ status: 200, body: created });
    const listed = await call("GET", `/orders?status=open&table_number=${created.table_number}`, terminal);
    expect(listed.body.map((o: { id: string }) => o.id)).toEqual([created.id]);
  });

  it("numbers concurrent orders of a store without sharing a number", async () => {
    const numbers = await Promise.all(Array.from({ length: 5 }, () => order().then((o) => o.order_number)));
    expect(new Set(numbers).size).toBe(5);
  });

  it("refuses bad input with the field and changes nothing", async () => {
    const bad = async (body: unknown, field: string) => {
      const response = await call("POST", "/orders", terminal, body);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: "invalid_request", details: { field } });
    };
    await bad({ order_type: "takeaway", items: [] }, "items");
    await bad({ order_type: "takeaway", items: [{ ...items[0], quantity: 0 }] }, "items.0.quantity");
    await bad({ order_type: "takeaway", items: [{ ...items[0], unit_price: 1.5 }] }, "items.0.unit_price");
    await bad({ order_type: "dine_in", items }, "table_number");
    await bad({ order_type: "eat_in", items }, "order_type");
    await bad({ order_type: "takeaway", items, discount_amount: 999_999 }, "discount_amount");
    await bad({ order_type: "takeaway", items: [items[0], items[0]] }, "items");
    await bad({ order_type: "takeaway", items, card_number: "4242" }, "card_number");
    const before = await call("GET", "/orders?limit=100", terminal);
    await bad({ order_type: "takeaway", items, customer_id: "nope" }, "customer_id");
    expect((await call("GET", "/orders?limit=100", terminal)).body).toEqual(before.body);
  });

  it("refuses a list range whose to is not after its from, naming to", async () => {
    for (const list of ["/orders", "/bills"]) {
      const backwards = await call("GET", `${list}?from=2026-05-02T00:00:00Z&to=2026-05-01T00:00:00Z`, terminal);
      expect(backwards).toMatchObject({ status: 400, body: { details: { field: "to", constraint: "after_from" } } });
    }
  });

  it("answers a retried order or bill with the first one, made once, and refuses its key for another body", async () => {
    const key = randomUUID();
    const table_number = `T${++table}`;
    const body = { order_type: "dine_in", table_number, items };
    const first = await call("POST", "/orders", terminal, body, key);
    expect(first.status).toBe(201);
    const again = await call("POST", "/orders", terminal, { items, table_number, order_type: "dine_in" }, key);
    expect(again).toMatchObject({ status: 201, body: first.body });
    const changed = await call("POST", "/orders", terminal, { ...body, discount_amount: 100 }, key);
    expect(changed).toMatchObject({ status: 409, body: { code: "idempotency_conflict" } });
    expect((await call("GET", `/orders?table_number=${table_number}`, terminal)).body).toHaveLength(1);

    const billKey = randomUUID();
    const billBody = { order_id: first.body.id, staff_code: staffCode, tax_percentage: 10 };
    const billed = await call("POST", "/bills", terminal, billBody, billKey);
    expect(billed.status).toBe(201);
    expect(await call("POST", "/bills", terminal, billBody, billKey)).toMatchObject({ status: 201, body: billed.body });
    const otherTax = await call("POST", "/bills", terminal, { ...billBody, tax_percentage: 8 }, billKey);
    expect(otherTax).toMatchObject({ status: 409, body: { code: "idempotency_conflict" } });
    // One key space per store: the order's key on a bill is another request.
    const crossed = await call("POST", "/bills", terminal, billBody, key);
    expect(crossed).toMatchObject({ status: 409, body: { code: "idempotency_conflict" } });
    expect((await call("GET", `/bills?order_id=${first.body.id}`, terminal)).body).toHaveLength(1);
  });

  it("takes over an order's key its request left processing when it died, and orders once", async () => {
    const key = randomUUID();
    const table_number = `T${++table}`;
    const body = { order_type: "dine_in", table_number, items };
    // The claim a request killed before its transaction committed leaves: processing, no order (a kill -9 cannot be
    // timed between the claim and the commit, so the test writes the row the claim wrote, five minutes ago).
    await platform.pos.prisma.paymentIdempotencyKey.create({
      data: {
        store_id: store.id,
        idempotency_key: key,
        request_hash: idempotencyRequest(key, "createOrder", { input: parseInput(orderCreate, body) })!.request_hash,
        status: "processing",
        atomic: true,
        created_at: new Date(Date.now() - 5 * 60_000),
        expires_at: new Date(Date.now() + 24 * 60 * 60_000),
      },
    });
    const other = await call("POST", "/orders", terminal, { ...body, discount_amount: 100 }, key);
    expect(other).toMatchObject({ status: 409, body: { code: "idempotency_conflict" } });
    const retried = await call("POST", "/orders", terminal, body, key);
    expect(retried.status).toBe(201);
    expect(await call("POST", "/orders", terminal, body, key)).toMatchObject({ status: 201, body: retried.body });
    expect((await call("GET", `/orders?table_number=${table_number}`, terminal)).body).toHaveLength(1);
    // What the retry's own claim wrote: an order's key is one a dead request leaves to be taken over.
    const row = await platform.pos.prisma.paymentIdempotencyKey.findUniqueOrThrow({
      where: { store_id_idempotency_key: { store_id: store.id, idempotency_key: key } },
    });
    expect(row).toMatchObject({ status: "completed", atomic: true });
  });

  it("changes items only while the order is open, then bills it with tax rounded down", async () => {
    const created = await order();
    const changed = await call("PATCH", `/orders/${created.id}`, terminal, {
      items: [{ sequence: 1, item_name: "Curry", quantity: 1, unit_price: 999 }],
    });
    expect(changed.body).toMatchObject({ subtotal: 999, total_amount: 999 });
    const unknownStaff = await call("POST", "/bills", terminal, {
      order_id: created.id,
      staff_code: "STF-ZZZ-ZZZ",
      tax_percentage: 10,
    });
    expect(unknownStaff).toMatchObject({ status: 400, body: { details: { field: "staff_code" } } });
    expect((await call("GET", `/orders/${created.id}`, terminal)).body.status).toBe("open");
    const made = await bill(created.id, 10);
    expect(made).toMatchObject({
      order_id: created.id,
      staff_code: staffCode,
      subtotal: 999,
      tax_amount: 99,
      total_amount: 1098,
      paid_amount: 0,
      remaining_amount: 1098,
      status: "pending",
      is_split: false,
    });
    expect(made.bill_number).toMatch(/^B\d{8}-\d{4}$/);
    const billed = (await call("GET", `/orders/${created.id}`, terminal)).body;
    expect(billed).toMatchObject({ status: "billed", bill_id: made.id, tax_amount: 99, total_amount: 1098 });
    expect((await call("PATCH", `/orders/${created.id}`, terminal, { items })).status).toBe(409);
    expect((await call("POST", `/orders/${created.id}/cancel`, terminal)).status).toBe(409);
    expect(
      (await call("POST", "/bills", terminal, { order_id: created.id, staff_code: staffCode, tax_percentage: 10 }))
        .status,
    ).toBe(409);
  });

  it("cancels a bill (its order opens again) and an open order", async () => {
    const created = await order();
    const made = await bill(created.id);
    expect((await call("POST", `/bills/${made.id}/cancel`, terminal)).body.status).toBe("cancelled");
    const reopened = (await call("GET", `/orders/${created.id}`, terminal)).body;
    expect(reopened).toMatchObject({ status: "open", bill_id: null, tax_amount: 0, total_amount: 4090 });
    expect((await call("POST", `/orders/${created.id}/cancel`, terminal)).body.status).toBe("cancelled");
  });

  it("pages a REST list through Link and X-Total-Count, with the cursors of GraphQL's pages", async () => {
    const tables = [await order(), await order(), await order()].map((made) => made.table_number as string);
    const path = (query: string) => `/orders?status=open&limit=2${query}`;
    const total = Number((await call("GET", path(""), terminal)).headers.get("x-total-count"));
    expect(total).toBeGreaterThanOrEqual(3);
    const seen: string[] = [];
    let next: string | undefined = path("");
    while (next) {
      const page = await call("GET", next, terminal);
      expect(page.status).toBe(200);
      expect(Array.isArray(page.body)).toBe(true);
      expect(page.headers.get("x-total-count")).toBe(String(total));
      seen.push(...page.body.map((row: { table_number: string }) => row.table_number));
      next = /^<([^>]+)>; rel="next"$/.exec(page.headers.get("link") ?? "")?.[1];
      if (next) expect(next).toMatch(/^\/orders\?status=open&limit=2&after=[\w-]+$/);
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect(seen.slice(0, 3).sort()).toEqual([...tables].sort());
  });

  it("splits by amount once, even when two splits race", async () => {
    const made = await bill((await order()).id, 8);
    expect(made.total_amount).toBe(4417);
    const wrong = await call("POST", `/bills/${made.id}/split`, terminal, { splits: [{ amount: 1 }, { amount: 2 }] });
    expect(wrong).toMatchObject({ status: 400, body: { details: { field: "splits", constraint: "sum" } } });
    const one = await call("POST", `/bills/${made.id}/split`, terminal, { splits: [{ amount: 4417 }] });
    expect(one).toMatchObject({
      status: 400,
      body: { message: "splits must have at least 2 items", details: { field: "splits", constraint: "too_small" } },
    });
    const body = { splits: [{ amount: 2000 }, { amount: 2417 }] };
    const results = await Promise.all([
      call("POST", `/bills/${made.id}/split`, terminal, body),
      call("POST", `/bills/${made.id}/split`, terminal, body),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const split = results.find((r) => r.status === 200)!.body;
    expect(split.is_split).toBe(true);
    expect(split.splits.map((s: { amount: number; status: string }) => [s.amount, s.status])).toEqual([
      [2000, "pending"],
      [2417, "pending"],
    ]);
  });

  it("splits by items, each item once, amounts adding up to the total", async () => {
    const created = await order();
    const made = await bill(created.id, 10);
    const [ramen, gyoza, beer] = created.items.map((item: { id: string }) => item.id);
    const missing = await call("POST", `/bills/${made.id}/split`, terminal, {
      splits: [{ item_ids: [ramen] }, { item_ids: [gyoza] }],
    });
    expect(missing).toMatchObject({ status: 400, body: { details: { constraint: "every_item" } } });
    const twice = await call("POST", `/bills/${made.id}/split`, terminal, {
      splits: [{ item_ids: [ramen, gyoza] }, { item_ids: [gyoza, beer] }],
    });
    expect(twice).toMatchObject({ status: 400, body: { details: { field: "splits.1.item_ids.0" } } });
    const mixed = await call("POST", `/bills/${made.id}/split`, terminal, {
      splits: [{ item_ids: [ramen] }, { amount: 5 }],
    });
    expect(mixed.status).toBe(400);
    const split = await call("POST", `/bills/${made.id}/split`, terminal, {
      splits: [{ item_ids: [ramen, gyoza] }, { item_ids: [beer] }],
    });
    expect(split.status).toBe(200);
    const amounts = split.body.splits.map((s: { amount: number }) => s.amount);
    expect(amounts.reduce((a: number, b: number) => a + b, 0)).toBe(made.total_amount);
    expect(amounts).toEqual([2684, 1815]);
  });

  it("combines tables' unpaid bills into one, once, even when two combines race", async () => {
    const [a, b] = [await order(), await order()];
    const [billA, billB] = [await bill(a.id), await bill(b.id)];
    const body = { table_numbers: [a.table_number, b.table_number], staff_code: staffCode };
    const results = await Promise.all([
      call("POST", "/bills/combine", terminal, body),
      call("POST", "/bills/combine", terminal, body),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const combined = results.find((r) => r.status === 201)!.body;
    expect(combined).toMatchObject({
      order_id: null,
      is_combined: true,
      total_amount: billA.total_amount + billB.total_amount,
      tax_amount: billA.tax_amount + billB.tax_amount,
      combined_table_numbers: [a.table_number, b.table_number],
      status: "pending",
    });
    expect([...combined.combined_bill_ids].sort()).toEqual([billA.id, billB.id].sort());
    const source = (await call("GET", `/bills/${billA.id}`, terminal)).body;
    expect(source).toMatchObject({ status: "cancelled", combined_into_bill_id: combined.id });
    expect(
      (await call("POST", `/bills/${billA.id}/split`, terminal, { splits: [{ amount: 1 }, { amount: 1 }] })).status,
    ).toBe(409);
    expect((await call("GET", `/orders/${a.id}`, terminal)).body.bill_id).toBe(combined.id);
    const listed = (await call("GET", `/bills?table_number=${a.table_number}`, terminal)).body;
    expect(listed.map((x: { id: string }) => x.id)).toEqual([combined.id]);
    const single = await call("POST", "/bills/combine", terminal, {
      table_numbers: ["T-none", a.table_number],
      staff_code: staffCode,
    });
    expect(single).toMatchObject({ status: 409, body: { details: { field: "table_numbers" } } });
    const badCode = await call("POST", "/bills/combine", terminal, { ...body, staff_code: "nobody" });
    expect(badCode).toMatchObject({ status: 400, body: { details: { field: "staff_code" } } });
  });

  it("applies concurrent payments under the bill's lock, never beyond what remains, and completes the order", async () => {
    const created = await order();
    const made = await bill(created.id, 10);
    const pay = (amount: number) =>
      platform.pos.bills
        .transaction((tx) => platform.pos.bills.applyPayment(tx, { bill_id: made.id, amount }))
        .then(
          (b) => b.status,
          (error: { details?: { constraint?: string } }) => error.details?.constraint,
        );
    const outcomes = await Promise.all([pay(3000), pay(3000)]);
    expect(outcomes.sort()).toEqual(["partial", "remaining_amount"]);
    expect(await pay(made.total_amount - 3000)).toBe("paid");
    expect((await call("GET", `/bills/${made.id}`, terminal)).body).toMatchObject({
      paid_amount: made.total_amount,
      remaining_amount: 0,
      status: "paid",
    });
    expect((await call("GET", `/orders/${created.id}`, terminal)).body.status).toBe("completed");
    expect((await call("POST", `/bills/${made.id}/cancel`, terminal)).status).toBe(409);
  });

  it("shows a store's orders to its portal users and hides them from other tenants (404)", async () => {
    const created = await order();
    expect((await call("GET", `/api/v1/orders/${created.id}`, pspAdmin)).status).toBe(200);
    expect((await call("GET", `/api/v1/orders?store_id=${store.id}`, pspAdmin)).status).toBe(200);
    expect((await call("GET", "/api/v1/orders", pspAdmin)).body.details.field).toBe("store_id");
    expect((await call("GET", `/api/v1/orders/${created.id}`, outsider)).status).toBe(404);
    expect((await call("PATCH", `/api/v1/orders/${created.id}`, outsider, { items })).status).toBe(404);
    expect((await call("POST", `/api/v1/orders/${created.id}/cancel`, outsider)).status).toBe(404);
    expect((await call("POST", `/orders/${created.id}/cancel`, undefined)).status).toBe(401);
    expect((await call("GET", `/orders/${created.id}`, terminal)).body.status).toBe("open");
    expect((await call("GET", `/api/v1/bills?store_id=${store.id}`, outsider)).status).toBe(404);
    const theirs = (await call("GET", "/api/v1/orders", outsider)).body;
    expect(theirs.some((o: { id: string }) => o.id === created.id)).toBe(false);
    const byManager = await call("POST", "/api/v1/orders", manager, { order_type: "takeaway", items });
    expect(byManager).toMatchObject({ status: 201, body: { store_id: store.id, device_id: null } });
    expect((await call("GET", "/orders", undefined)).status).toBe(401);
  });
});
