import { afterAll, beforeAll, describe, expect } from "vitest";
import { STALE_AFTER_MS } from "../../subgraphs/pos/src/modules/payments/workflows/recover-interrupted-payments";
import { deviceToken } from "../support/device";
import { signed } from "../support/gateway";
import { loggedDuring } from "../support/log";
import { movableClock } from "../support/payments";
import { callJson, inProcessOnly, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededDevice, type SeededStore, type SeededStorePartner, seed } from "../support/seed";

// Issue 33: a card sale the acquirer approved whose capture the gateway refuses (429: the merchant's budget is spent)
// must not be lost: the approval stays on the payment and the recovery pass captures it once the window turns.
const limits = { merchant: 10, store: 10, ip: 1000, global: 100_000, api: 100_000, windowSeconds: 60 };
const clock = movableClock();

describe("a card payment whose capture the gateway throttles", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  let pos: SeededStorePartner;
  let device: SeededDevice;
  let terminal: string;
  let staffCode: string;
  let table = 0;

  beforeAll(async () => {
    platform = await startTestPlatform({ clock, demo: false, rateLimits: limits });
    store = await seed(platform).store({ sells: true });
    pos = await seed(platform).storePartner(store);
    device = await seed(platform).device(store);
    terminal = await deviceToken(platform.baseUrl, device);
    staffCode = (await seed(platform).user("STAFF", store)).login_id;
  });
  afterAll(() => platform?.close());

  const call = (method: string, path: string, body?: unknown) =>
    callJson(platform.baseUrl, method, path, terminal, body);
  const row = (id: string) => platform.pos.prisma.payment.findUniqueOrThrow({ where: { id } });
  const intentStatus = async (id: string) =>
    (await platform.payments.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status;
  const approval = {
    approval_code: "A429",
    card_document_number: "SLIP-4290",
    card_last_4: "4242",
    card_brand: "VISA",
  };

  /** A bill of 1,100 (1,000 and 10% tax) at a table of its own, and a card (or e-money) payment of it in flight. */
  async function cardInFlight(payment_method: Record<string, string> = { type: "CREDIT_CARD" }) {
    const order = await call("POST", "/orders", {
      order_type: "dine_in",
      table_number: `T${++table}`,
      items: [{ sequence: 1, item_name: "Ramen", quantity: 1, unit_price: 1000 }],
    });
    const bill = await call("POST", "/bills", { order_id: order.body.id, staff_code: staffCode, tax_percentage: 10 });
    const card = await call("POST", "/payments", {
      bill_id: bill.body.id,
      amount: bill.body.total_amount,
      payment_method,
    });
    expect(card.status).toBe(201);
    return { bill: bill.body, payment: card.body };
  }

  /** Spends the store's merchant's budget for this window with the POS partner's own calls for the store. */
  async function spendMerchantBudget() {
    for (let i = 0; i <= limits.merchant; i++) {
      const listed = await signed(platform.baseUrl, pos, "GET", `/v1/payment_intents?merchant_store_id=${store.code}`);
      if (listed.status === 429) return;
    }
    throw new Error("the merchant's budget was never spent");
  }

  /** The recovery pass once a noted approval has waited its turn (`STALE_AFTER_MS`). */
  const recover = () => platform.pos.payments.recoverStalePayments(new Date(clock().getTime() + 2 * STALE_AFTER_MS));
  /** The same in the next rate window; the terminal takes a new token, as its tokens live by the same clock. */
  const recoverNextWindow = async () => {
    clock.advance(limits.windowSeconds * 1000);
    terminal = await deviceToken(platform.baseUrl, device, clock());
    return recover();
  };

  inProcessOnly("keeps the approval through the 429 and captures it once, in the next window", async () => {
    const { bill, payment } = await cardInFlight();
    await spendMerchantBudget();
    const throttled = await call("PATCH", `/payments/${payment.id}`, approval);
    expect(throttled).toMatchObject({ status: 503, body: { code: "service_unavailable" } });
    expect(await row(payment.id)).toMatchObject({ status: "pending", ...approval });
    expect(await intentStatus(payment.payment_intent_id)).toBe("requires_action");

    await recoverNextWindow();
    expect(await row(payment.id)).toMatchObject({ status: "completed", ...approval });
    expect(await intentStatus(payment.payment_intent_id)).toBe("succeeded");
    expect((await call("GET", `/bills/${bill.id}`)).body).toMatchObject({ status: "paid", paid_amount: 1100 });
    // The terminal's own retry finds it settled, and pays nothing twice.
    expect((await call("PATCH", `/payments/${payment.id}`, approval)).status).toBe(409);
    expect((await call("GET", `/bills/${bill.id}`)).body).toMatchObject({ paid_amount: 1100 });
    await platform.pos.payments.recoverStalePayments();
    expect(await row(payment.id)).toMatchObject({ status: "completed" });
  });

  inProcessOnly("reports an approved card whose intent ended before its capture, keeping the approval", async () => {
    const { bill, payment } = await cardInFlight();
    // The intent ends at the gateway before the card app reports (a person cancelled it): no capture can record it.
    await platform.payments.prisma.paymentIntent.update({
      where: { id: payment.payment_intent_id },
      data: { status: "cancelled" },
    });
    const refused = await call("PATCH", `/payments/${payment.id}`, approval);
    expect(refused).toMatchObject({ status: 409, body: { code: "invalid_state" } });
    expect(await row(payment.id)).toMatchObject({ status: "pending", ...approval });
    const logged = await loggedDuring(recover);
    expect(logged).toContain("the gateway refused the capture of a card payment the acquirer approved");
    expect(await row(payment.id)).toMatchObject({ status: "failed", failure_code: "capture_refused", ...approval });
    expect((await call("GET", `/bills/${bill.id}`)).body).toMatchObject({ paid_amount: 0 });
  });

  inProcessOnly(
    "captures an approved e-money payment, which has a slip number and no approval code, the same way",
    async () => {
      const { bill, payment } = await cardInFlight({ type: "EMONEY", brand: "transport_ic" });
      await spendMerchantBudget();
      const result = { card_document_number: "IC-0042", card_last_4: "9876" };
      const throttled = await call("PATCH", `/payments/${payment.id}`, result);
      expect(throttled).toMatchObject({ status: 503, body: { code: "service_unavailable" } });
      expect(await row(payment.id)).toMatchObject({ status: "pending", approval_code: null, ...result });

      await recoverNextWindow();
      expect(await row(payment.id)).toMatchObject({ status: "completed", emoney_brand: "transport_ic", ...result });
      expect(await intentStatus(payment.payment_intent_id)).toBe("succeeded");
      expect((await call("GET", `/bills/${bill.id}`)).body).toMatchObject({ status: "paid", paid_amount: 1100 });
    },
  );
});
