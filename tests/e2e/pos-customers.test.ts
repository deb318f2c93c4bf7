import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { businessDay } from "../../subgraphs/pos/src/daily-number";
import { deviceToken, humanToken } from "../support/device";
import { postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { seedBranch } from "../support/portal-seed";
import { type SeededStore, seed } from "../support/seed";

// Customers through REST as the portal's store manager calls them (/api/v1, and the unprefixed paths), and their
// totals kept by a terminal's sales (device token): cash payments of a plain and a split bill, and refunds.
describe("POS customers", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  let terminal: string;
  let manager: string;
  let staff: string;
  let outsider: string;
  let staffCode: string;
  let leaderCode: string;
  /** A terminal\'s refund needs the approving leader\'s PIN besides the login id (issue 21). */
  let leaderPin: string;
  let table = 0;
  let serial = 0;

  const call = async (method: string, path: string, token: string | undefined, body?: unknown) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  /** A phone number no other test of this file uses, as a till would type it (national form, separators). */
  const phone = () => {
    const digits = `${Date.now() % 10_000}${String(++serial).padStart(4, "0")}`.padStart(8, "0");
    return { typed: `090-${digits.slice(0, 4)}-${digits.slice(4)}`, e164: `+8190${digits}` };
  };
  const register = async (body: Record<string, unknown>, token = manager) => {
    const created = await call("POST", "/api/v1/customers", token, body);
    expect(created.status).toBe(201);
    return created.body;
  };
  const customer = async (id: string) => (await call("GET", `/api/v1/customers/${id}`, manager)).body;

  /** A terminal's order for the customer at a table of its own, billed at 10%: 2 x 980 + 480 = 2440 + 244 = 2684. */
  async function billedOrder(customer_id?: string) {
    const order = await call("POST", "/orders", terminal, {
      order_type: "dine_in",
      table_number: `C${++table}`,
      customer_id,
      items: [
        { sequence: 1, item_name: "Ramen", quantity: 2, unit_price: 980 },
        { sequence: 2, item_name: "Gyoza", quantity: 1, unit_price: 480 },
      ],
    });
    expect(order.status).toBe(201);
    const bill = await call("POST", "/bills", terminal, {
      order_id: order.body.id,
      staff_code: staffCode,
      tax_percentage: 10,
    });
    expect(bill.status).toBe(201);
    expect(bill.body).toMatchObject({ total_amount: 2684, customer_id: customer_id ?? null });
    return { order: order.body, bill: bill.body };
  }

  const payCash = async (bill_id: string, amount: number, split_id?: string) => {
    const paid = await call("POST", "/payments", terminal, {
      bill_id,
      split_id,
      amount,
      payment_method: { type: "CASH" },
      cash_received: amount,
    });
    expect(paid.body).toMatchObject({ status: "completed", amount });
    return paid.body;
  };

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    store = await seed(platform).store({ sells: true });
    terminal = await deviceToken(platform.baseUrl, await seed(platform).device(store));
    const place = { psp_id: store.psp_id, merchant_id: store.merchant_id, store_id: store.id };
    manager = await humanToken(platform.portal, { role: "STORE_MANAGER", ...place });
    staff = await humanToken(platform.portal, { role: "STAFF", ...place });
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

  it("registers a customer with a generated number, and refuses a second one with the same phone (409)", async () => {
    const number = phone();
    const created = await register({
      name: "Sato Hanako",
      name_kana: "サトウ ハナコ",
      phone: number.typed,
      email: `Hanako.${serial}@Example.JP`,
      date_of_birth: "1990-04-01",
      gender: "female",
      address: { postal_code: "150-0001", prefecture: "Tokyo", city: "Shibuya", street: "1-2-3 Jingumae" },
      preferences: { receipt_delivery: "email", language: "ja" },
    });
    expect(created).toMatchObject({
      merchant_id: store.merchant_id,
      phone: number.e164,
      email: `hanako.${serial}@example.jp`,
      total_spent: 0,
      total_visits: 0,
      last_visit: null,
      is_active: true,
      preferences: { receipt_delivery: "email", language: "ja" },
    });
    expect(created.customer_number).toMatch(/^C\d{7}$/);
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);

    const again = await call("POST", "/api/v1/customers", manager, { name: "Someone", phone: number.e164 });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "conflict", details: { field: "phone", constraint: "unique" } });
    // The unprefixed path is the same endpoint.
    const unprefixed = await call("POST", "/customers", manager, { email: created.email.toUpperCase() });
    expect(unprefixed.status).toBe(409);
    expect(unprefixed.body.details).toMatchObject({ field: "email" });

    const bad: [Record<string, unknown>, string][] = [
      [{ name: "No contact" }, "phone"],
      [{ phone: "12-34" }, "phone"],
      [{ email: "nobody" }, "email"],
      [{ email: "x@example.jp", date_of_birth: "01/04/1990" }, "date_of_birth"],
      [{ email: "x@example.jp", gender: "robot" }, "gender"],
      [{ email: "x@example.jp", preferences: { language: "fr" } }, "preferences.language"],
    ];
    for (const [body, field] of bad) {
      const refused = await call("POST", "/api/v1/customers", manager, body);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: "invalid_request", details: { field } });
    }
  });

  it("is for Store Managers and above: staff (L6) and terminals get 403", async () => {
    const someone = await register({ phone: phone().typed });
    for (const token of [staff, terminal]) {
      expect((await call("POST", "/api/v1/customers", token, { phone: phone().typed })).status).toBe(403);
      expect((await call("GET", `/api/v1/customers/${someone.id}`, token)).status).toBe(403);
      expect((await call("GET", `/customers?name=a`, token)).status).toBe(403);
      const patched = await call("PATCH", `/api/v1/customers/${someone.id}`, token, { name: "x" });
      expect(patched.status).toBe(403);
      expect(patched.body.code).toBe("forbidden");
    }
  });

  it("lets a PSP admin work with a merchant of its PSP it names, and no other", async () => {
    const pspAdmin = await humanToken(platform.portal, { role: "PSP_ADMIN", psp_id: store.psp_id });
    const unnamed = await call("POST", "/api/v1/customers", pspAdmin, { phone: phone().typed });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.details).toMatchObject({ field: "merchant_id", constraint: "required" });
    const named = await call("POST", "/api/v1/customers", pspAdmin, {
      merchant_id: store.merchant_id,
      phone: phone().typed,
    });
    expect(named.status).toBe(201);
    expect((await call("GET", `/api/v1/customers/${named.body.id}`, pspAdmin)).status).toBe(200);
    const other = await seedBranch(platform.portal);
    const elsewhere = await call("POST", "/api/v1/customers", pspAdmin, {
      merchant_id: other.merchant.id,
      phone: phone().typed,
    });
    expect(elsewhere.status).toBe(404);
    const foreign = await humanToken(platform.portal, { role: "PSP_ADMIN", psp_id: other.psp.id });
    expect((await call("GET", `/api/v1/customers/${named.body.id}`, foreign)).status).toBe(404);
  });

  it("hides another merchant's customer (404), and never changes merchant_id or customer_number (400)", async () => {
    const mine = await register({ name: "Kimura", phone: phone().typed });
    const read = await call("GET", `/api/v1/customers/${mine.id}`, outsider);
    expect(read.status).toBe(404);
    expect(read.body.code).toBe("not_found");
    expect((await call("PATCH", `/api/v1/customers/${mine.id}`, outsider, { name: "Stolen" })).status).toBe(404);
    expect((await call("GET", `/api/v1/customers/${mine.id}/orders`, outsider)).status).toBe(404);
    expect((await call("GET", `/api/v1/customers/${randomUUID()}`, manager)).status).toBe(404);
    // The outsider's search sees its own merchant only.
    const searched = await call("GET", `/api/v1/customers?phone=${encodeURIComponent(mine.phone)}`, outsider);
    expect(searched).toMatchObject({ status: 200, body: [] });

    for (const [field, value] of [
      ["merchant_id", 999],
      ["customer_number", "C0000001"],
    ] as const) {
      const refused = await call("PATCH", `/api/v1/customers/${mine.id}`, manager, { name: "New", [field]: value });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: "invalid_request", details: { field, constraint: "immutable" } });
    }
    expect((await customer(mine.id)).name).toBe("Kimura");
    const changed = await call("PATCH", `/customers/${mine.id}`, manager, {
      name: "Kimura Takuya",
      address: { city: "Osaka" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      id: mine.id,
      customer_number: mine.customer_number,
      merchant_id: store.merchant_id,
      name: "Kimura Takuya",
      phone: mine.phone,
      address: { city: "Osaka", postal_code: null },
    });
  });

  it("searches by phone, email and name partially and case-insensitively, customer_number exactly, sorted", async () => {
    const tag = randomUUID().slice(0, 8);
    const a = await register({ name: `Aoki ${tag}`, phone: phone().typed, email: `aoki.${tag}@example.jp` });
    const b = await register({ name: `Baba ${tag}`, phone: phone().typed, email: `baba.${tag}@example.jp` });
    const search = async (query: string) => {
      const found = await call("GET", `/api/v1/customers?${query}`, manager);
      expect(found.status).toBe(200);
      return found.body.map((row: { id: string }) => row.id);
    };
    const none = await call("GET", "/api/v1/customers?limit=5", manager);
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ code: "invalid_request", details: { constraint: "search_parameter" } });
    expect(await search(`name=${tag.toUpperCase()}`)).toEqual([a.id, b.id]);
    expect(await search(`name=${tag}&order=desc`)).toEqual([b.id, a.id]);
    expect(await search(`email=BABA.${tag}`)).toEqual([b.id]);
    expect(await search(`phone=${encodeURIComponent(a.phone.slice(-6))}`)).toEqual([a.id]);
    expect(await search(`customer_number=${b.customer_number}`)).toEqual([b.id]);
    expect(await search(`customer_number=${b.customer_number.slice(0, -1)}`)).toEqual([]);
    expect(await search(`name=${tag}&limit=1&offset=1`)).toEqual([b.id]);
    const badSort = await call("GET", `/api/v1/customers?name=${tag}&sort=age`, manager);
    expect(badSort.status).toBe(400);
    expect(badSort.body.details).toMatchObject({ field: "sort" });

    // Spending orders them: b spends, then is first by total_spent (most first) and by last_visit.
    const { bill } = await billedOrder(b.id);
    await payCash(bill.id, 2684);
    expect(await search(`name=${tag}&sort=total_spent`)).toEqual([b.id, a.id]);
    expect(await search(`name=${tag}&sort=total_spent&order=asc`)).toEqual([a.id, b.id]);
    expect(await search(`name=${tag}&sort=last_visit`)).toEqual([b.id, a.id]);
  });

  it("keeps total_spent, total_visits and last_visit through cash payments, a split bill and refunds", async () => {
    const regular = await register({ name: "Regular", phone: phone().typed });

    // One bill paid at once: spent 2684, one visit.
    const first = await billedOrder(regular.id);
    const paid = await payCash(first.bill.id, 2684);
    let now = await customer(regular.id);
    expect(now).toMatchObject({ total_spent: 2684, total_visits: 1 });
    expect(Date.parse(now.last_visit)).toBeGreaterThanOrEqual(Date.parse(paid.completed_at) - 1000);

    // A split bill: two payments are one visit, counted when the bill is paid in full.
    const second = await billedOrder(regular.id);
    const split = await call("POST", `/bills/${second.bill.id}/split`, terminal, {
      splits: [{ amount: 1684 }, { amount: 1000 }],
    });
    expect(split.status).toBe(200);
    const [one, two] = split.body.splits as { id: string }[];
    await payCash(second.bill.id, 1684, one!.id);
    expect(await customer(regular.id)).toMatchObject({ total_spent: 4368, total_visits: 1 });
    await payCash(second.bill.id, 1000, two!.id);
    now = await customer(regular.id);
    expect(now).toMatchObject({ total_spent: 5368, total_visits: 2 });

    // A partial refund takes its amount off; a refund of the rest cancels the bill, which is then no visit.
    const refund = (amount: number) =>
      call("POST", `/payments/${paid.id}/refund`, terminal, {
        refund_amount: amount,
        reason: "cold ramen",
        staff_code: leaderCode,
        staff_pin: leaderPin,
      });
    expect((await refund(684)).status).toBe(201);
    expect(await customer(regular.id)).toMatchObject({ total_spent: 4684, total_visits: 2 });
    expect((await refund(2000)).status).toBe(201);
    expect(await customer(regular.id)).toMatchObject({
      total_spent: 2684,
      total_visits: 1,
      last_visit: now.last_visit,
    });
    // A refused refund (over the amount) changes nothing.
    expect((await refund(1)).status).toBe(409);
    expect(await customer(regular.id)).toMatchObject({ total_spent: 2684, total_visits: 1 });

    // A sale without a customer touches no customer.
    const anonymous = await billedOrder();
    await payCash(anonymous.bill.id, 2684);
    expect(await customer(regular.id)).toMatchObject({ total_spent: 2684, total_visits: 1 });

    // A card payment counts once the card app's approval completes it; a declined one never does.
    const third = await billedOrder(regular.id);
    const card = async () =>
      (
        await call("POST", "/payments", terminal, {
          bill_id: third.bill.id,
          amount: 2684,
          payment_method: { type: "CREDIT_CARD" },
        })
      ).body;
    const declined = await card();
    await call("PATCH", `/payments/${declined.id}`, terminal, { status: "declined", error_message: "no funds" });
    expect(await customer(regular.id)).toMatchObject({ total_spent: 2684, total_visits: 1 });
    const approved = await card();
    expect(await customer(regular.id)).toMatchObject({ total_spent: 2684, total_visits: 1 });
    const result = await call("PATCH", `/payments/${approved.id}`, terminal, {
      approval_code: "A12345",
      card_document_number: "SLIP-0001",
      card_last_4: "4242",
      card_brand: "VISA",
    });
    expect(result.body.status).toBe("completed");
    expect(await customer(regular.id)).toMatchObject({ total_spent: 5368, total_visits: 2 });

    // The same money within a range of business days (GraphQL): today holds it all, yesterday nothing.
    const spend = (from: string, to: string) =>
      postGraphQL(
        platform.baseUrl,
        `query ($id: ID!, $from: String!, $to: String!) { customer(id: $id) { total_spent spend(from: $from, to: $to) {
          from to paid_amount payment_count refunded_amount refund_count spent_amount } } }`,
        { id: regular.id, from, to },
        manager,
      );
    const today = businessDay(new Date()).replace(/(\d{4})(\d{2})(\d{2})/, "$1-$2-$3");
    const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expect((await spend(yesterday, today)).body.data.customer).toEqual({
      total_spent: 5368,
      spend: {
        from: yesterday,
        to: today,
        paid_amount: 2684 + 1684 + 1000 + 2684,
        payment_count: 4,
        refunded_amount: 684 + 2000,
        refund_count: 2,
        spent_amount: 5368,
      },
    });
    expect((await spend(yesterday, yesterday)).body.data.customer.spend).toMatchObject({
      paid_amount: 0,
      payment_count: 0,
      refunded_amount: 0,
      spent_amount: 0,
    });
    const backwards = await spend(today, yesterday);
    expect(backwards.body.errors?.[0]).toMatchObject({
      extensions: { code: "INVALID_REQUEST", details: { field: "to", constraint: "not_before_from" } },
    });
    expect((await spend("2026-02-30", today)).body.errors?.[0].extensions).toMatchObject({
      details: { field: "from" },
    });
  });

  it("lists the purchase history newest first within a date range, and refuses another merchant's customer on an order", async () => {
    const buyer = await register({ name: "Buyer", phone: phone().typed });
    const older = (await billedOrder(buyer.id)).order;
    const newer = (await billedOrder(buyer.id)).order;
    const today = businessDay(new Date());
    const day = `${today.slice(0, 4)}-${today.slice(4, 6)}-${today.slice(6)}`;
    const history = async (query = "") => {
      const found = await call("GET", `/api/v1/customers/${buyer.id}/orders${query}`, manager);
      expect(found.status).toBe(200);
      return found.body;
    };
    const all = await history();
    expect(all.map((order: { id: string }) => order.id)).toEqual([newer.id, older.id]);
    expect(all[0]).toMatchObject({ customer_id: buyer.id, status: "billed", total_amount: 2684 });
    expect((await history(`?start_date=${day}&end_date=${day}`)).length).toBe(2);
    expect(await history(`?start_date=${day}&end_date=${day}&limit=1&offset=1`)).toMatchObject([{ id: older.id }]);
    expect(await history("?end_date=2020-01-01")).toEqual([]);
    expect(await history("?start_date=2999-01-01")).toEqual([]);
    const backwards = await call("GET", `/customers/${buyer.id}/orders?start_date=${day}&end_date=2020-01-01`, manager);
    expect(backwards.status).toBe(400);
    expect(backwards.body.details).toMatchObject({ field: "end_date" });
    expect((await call("GET", `/customers/${buyer.id}/orders`, staff)).status).toBe(403);

    const foreign = await call("POST", "/api/v1/customers", outsider, { phone: phone().typed });
    expect(foreign.status).toBe(201);
    const refused = await call("POST", "/orders", terminal, {
      order_type: "takeaway",
      customer_id: foreign.body.id,
      items: [{ sequence: 1, item_name: "Tea", quantity: 1, unit_price: 400 }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: "invalid_request",
      details: { field: "customer_id", constraint: "customer_of_merchant" },
    });
  });
});
