import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceToken, humanToken } from "../support/device";
import { callJson, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

const HOUR = 3_600_000;
/** The business date of a moment in Asia/Tokyo, the stores' business clock. */
const businessDate = (at: Date) => new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo" }).format(at);
/** A moment written as a terminal in Tokyo writes it: RFC 3339 with its +09:00 offset. */
const tokyoTime = (at: Date) => `${new Date(at.getTime() + 9 * HOUR).toISOString().slice(0, 23)}+09:00`;

// Issue 34: a terminal that sold while the network was down sends its queue when it is back, each sale with the time
// it happened. Through REST as the terminal does it (a device token), and the store's day and audit trail as its
// manager reads them.
describe("sales recorded offline (occurred_at)", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  let terminal: string;
  let manager: string;
  let staffCode: string;
  let table = 0;
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${terminal}`, "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));

  /** An order billed at 1100 (1000 and 10% tax), both recorded at `occurred_at` when given. */
  async function billed(occurred_at?: string) {
    const order = await call("POST", "/api/v1/orders", {
      order_type: "dine_in",
      table_number: `O${++table}`,
      items: [{ sequence: 1, item_name: "Curry", quantity: 1, unit_price: 1000 }],
      ...(occurred_at && { occurred_at }),
    });
    expect(order.status).toBe(201);
    const bill = await call("POST", "/api/v1/bills", {
      order_id: order.body.id,
      staff_code: staffCode,
      tax_percentage: 10,
      ...(occurred_at && { occurred_at }),
    });
    expect(bill.status).toBe(201);
    return { order: order.body, bill: bill.body };
  }
  const cash = (bill_id: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    call(
      "POST",
      "/api/v1/payments",
      { bill_id, amount: 1100, payment_method: { type: "CASH" }, cash_received: 2000, ...extra },
      headers,
    );

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    store = await seed(platform).store({ sells: true });
    terminal = await deviceToken(platform.baseUrl, await seed(platform).device(store));
    manager = await humanToken(platform.portal, {
      role: "STORE_MANAGER",
      psp_id: store.psp_id,
      merchant_id: store.merchant_id,
      store_id: store.id,
    });
    staffCode = (await seed(platform).user("STAFF", store)).login_id;
  });
  afterAll(() => platform?.close());

  it("records an order, its bill and its cash payment on the day they happened, two hours before they arrive", async () => {
    const happened = new Date(Date.now() - 2 * HOUR);
    const occurred_at = tokyoTime(happened);
    const day = businessDate(happened);
    const { order, bill } = await billed(occurred_at);
    const offline = { occurred_at: happened.toISOString(), recorded_offline: true };
    expect(order).toMatchObject(offline);
    expect(order.order_number).toMatch(new RegExp(`^${day.replaceAll("-", "")}-`));
    expect(bill).toMatchObject(offline);
    expect(bill.bill_number).toMatch(new RegExp(`^B${day.replaceAll("-", "")}-`));
    expect(Date.parse(bill.created_at)).toBeGreaterThan(happened.getTime() + HOUR);

    const key = randomUUID();
    const paid = await cash(bill.id, { occurred_at }, { "idempotency-key": key });
    expect(paid).toMatchObject({ status: 201, body: { status: "completed", ...offline } });
    expect(Date.parse(paid.body.completed_at)).toBe(happened.getTime());
    const replayed = await cash(bill.id, { occurred_at }, { "idempotency-key": key });
    expect(replayed.body).toMatchObject({ id: paid.body.id, ...offline });

    const storeDay = await postGraphQL(
      platform.baseUrl,
      "query ($store_id: Int, $date: String) { storeDay(store_id: $store_id, date: $date) { date csv } }",
      { store_id: store.id, date: day },
      manager,
    );
    const local = new Intl.DateTimeFormat("en-CA", {
      timeZone: "Asia/Tokyo",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    }).format(happened);
    expect(storeDay.body.data.storeDay.csv).toContain(`payment,${paid.body.id},${day},${local},CASH,1100,0,no`);

    // POS records travel as outbox events to the portal's consumer: they arrive shortly after the answer.
    const trail = () => callJson(platform.baseUrl, "GET", `/api/v1/audit-logs?target=${paid.body.id}`, manager);
    await expect.poll(async () => (await trail()).body.length).toBe(2);
    for (const record of (await trail()).body)
      expect(record.metadata).toMatchObject({
        recorded_offline: true,
        occurred_at: happened.toISOString(),
        recorded_at: paid.body.created_at,
      });
  });

  it("records a sale sent at once as it is, not as offline", async () => {
    const { order, bill } = await billed();
    expect(order).toMatchObject({ recorded_offline: false, occurred_at: order.created_at });
    expect(bill).toMatchObject({ recorded_offline: false, occurred_at: bill.created_at });
    const paid = await cash(bill.id);
    expect(paid.body).toMatchObject({ recorded_offline: false, occurred_at: paid.body.created_at });
  });

  it("refuses a time too old, one in the future, and one on a card payment, naming occurred_at and writing nothing", async () => {
    const { bill } = await billed();
    const tooOld = tokyoTime(new Date(Date.now() - 73 * HOUR));
    const ahead = tokyoTime(new Date(Date.now() + 10 * 60_000));
    const refusals: [Promise<{ status: number; body: any }>, Record<string, unknown>][] = [
      [cash(bill.id, { occurred_at: tooOld }), { constraint: "within_window" }],
      [cash(bill.id, { occurred_at: ahead }), { constraint: "not_future" }],
      [
        call("POST", "/api/v1/payments", {
          bill_id: bill.id,
          amount: 1100,
          payment_method: { type: "CREDIT_CARD" },
          occurred_at: tokyoTime(new Date(Date.now() - HOUR)),
        }),
        {},
      ],
      [
        call("POST", "/api/v1/orders", {
          order_type: "takeaway",
          items: [{ sequence: 1, item_name: "Tea", quantity: 1, unit_price: 300 }],
          occurred_at: tooOld,
        }),
        { constraint: "within_window" },
      ],
      [cash(bill.id, { occurred_at: "2031-03-10T10:00:00" }), {}],
    ];
    for (const [answer, details] of refusals)
      expect(await answer).toMatchObject({
        status: 400,
        body: { code: "invalid_request", details: { field: "occurred_at", ...details } },
      });
    const payments = await call("GET", `/api/v1/payments?bill_id=${bill.id}`);
    expect(payments.body).toEqual([]);
    expect((await call("GET", `/api/v1/bills/${bill.id}`)).body).toMatchObject({ status: "pending", paid_amount: 0 });
  });
});
