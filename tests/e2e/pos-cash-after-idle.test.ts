import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIAL_CACHE_MS } from "../../subgraphs/pos/src/modules/payments/gateway-credential.service";
import { deviceToken } from "../support/device";
import { movableClock } from "../support/payments";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

// Two helpers' cash sales hung for 15 s and failed with 504 once the platform's clock had moved on: the POS read its
// gateway credential again (due once a minute) inside the cash payment's transaction, and on PGlite that transaction
// holds the database's only connection. A till's first cash sale after a quiet minute hit it.
describe("a cash sale after a quiet minute", () => {
  const clock = movableClock();
  let platform: TestPlatform;
  let store: SeededStore;
  let staffCode: string;
  let table = 0;

  let device: Awaited<ReturnType<ReturnType<typeof seed>["device"]>>;

  /** A request as the terminal, with a token of the platform's present (a real terminal renews its own). */
  const call = async (method: string, path: string, body: unknown) => {
    const token = await deviceToken(platform.baseUrl, device, clock());
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  async function sellForCash() {
    const order = await call("POST", "/api/v1/orders", {
      order_type: "dine_in",
      table_number: `Q${++table}`,
      items: [{ sequence: 1, item_name: "Tea", quantity: 1, unit_price: 500 }],
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const bill = await call("POST", "/api/v1/bills", {
      order_id: order.body.id,
      staff_code: staffCode,
      tax_percentage: 10,
    });
    expect(bill.status, JSON.stringify(bill.body)).toBe(201);
    return call("POST", "/api/v1/payments", {
      bill_id: bill.body.id,
      amount: bill.body.total_amount,
      payment_method: { type: "CASH" },
      cash_received: 1000,
    });
  }

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false, clock });
    store = await seed(platform).store({ sells: true });
    staffCode = (await seed(platform).user("STAFF", store)).login_id;
    device = await seed(platform).device(store);
  });
  afterAll(() => platform?.close());

  it("completes at once, the credential read before the payment's transaction", async () => {
    const first = await sellForCash();
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    clock.advance(CREDENTIAL_CACHE_MS + 1_000);
    const after = await sellForCash();
    expect(after.status).toBe(201);
    expect(after.body).toMatchObject({ status: "completed", change_amount: 1000 - after.body.total_amount });
  });
});
