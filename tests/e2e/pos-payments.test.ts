import { randomUUID } from "node:crypto";
import { idempotencyRequest, parseInput } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { paymentCreate } from "../../subgraphs/pos/src/modules/payments/payment.inputs";
import { deviceToken, humanToken } from "../support/device";
import { call as callGateway } from "../support/gateway";
import { inProcessOnly, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { seedBranch } from "../support/portal-seed";
import { type SeededStore, seed } from "../support/seed";

// A terminal's sales through REST (device token, unprefixed paths): cash, card and QR payments of its bills.
describe("POS payments", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  /** The sandbox QR provider's address, where a customer's payment is made. */
  let sandboxUrl: string;
  let terminal: string;
  let outsider: string;
  let staffCode: string;
  let table = 0;

  const call = async (
    method: string,
    path: string,
    token: string | undefined,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };

  /** An order at a table of its own, billed at 10%: 2 x 980 + 480 = 2440, tax 244, total 2684. */
  async function billedOrder() {
    const order = await call("POST", "/orders", terminal, {
      order_type: "dine_in",
      table_number: `P${++table}`,
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
    expect(bill.body.total_amount).toBe(2684);
    return { order: order.body, bill: bill.body };
  }

  const pay = (body: Record<string, unknown>, key?: string) =>
    call("POST", "/payments", terminal, body, key ? { "idempotency-key": key } : {});
  const billOf = async (id: string) => (await call("GET", `/bills/${id}`, terminal)).body;
  const intentRow = (id: string) => platform.payments.prisma.paymentIntent.findUniqueOrThrow({ where: { id } });

  /** Waits for the POS payment row to leave pending, without reading it through the API (no poll). */
  async function settledRow(id: string) {
    const row = () => platform.pos.prisma.payment.findUniqueOrThrow({ where: { id } });
    await expect.poll(async () => (await row()).status, { timeout: 20_000 }).not.toBe("pending");
    return row();
  }

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
  });
  afterAll(() => platform?.close());

  it("runs a whole cash sale: change given, bill paid, order completed, a manual intent at the gateway", async () => {
    const { order, bill } = await billedOrder();
    const paid = await pay({
      bill_id: bill.id,
      amount: 2684,
      payment_method: { type: "CASH" },
      cash_received: 3000,
    });
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({
      bill_id: bill.id,
      store_id: store.id,
      amount: 2684,
      status: "completed",
      cash_received: 3000,
      change_amount: 316,
      payment_method: { type: "CASH", provider: null },
    });
    expect(paid.body.payment_intent_id).toMatch(/^pi_/);
    expect(paid.body.transaction_id).toBe(paid.body.payment_intent_id);
    const intent = await intentRow(paid.body.payment_intent_id);
    expect(intent).toMatchObject({ status: "succeeded", processing_mode: "manual", amount: 2684 });
    expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 2684, remaining_amount: 0 });
    expect((await call("GET", `/orders/${order.id}`, terminal)).body.status).toBe("completed");
    const listed = await call("GET", `/payments?bill_id=${bill.id}`, terminal);
    expect(listed.body.map((p: { id: string }) => p.id)).toEqual([paid.body.id]);
    expect((await call("GET", `/payments/${paid.body.id}`, terminal)).body).toEqual(paid.body);
  });

  it("takes a card payment when the card app approves, and leaves the bill payable when it declines", async () => {
    const { bill } = await billedOrder();
    const declined = await pay({ bill_id: bill.id, amount: 1000, payment_method: { type: "CREDIT_CARD" } });
    expect(declined.body).toMatchObject({ status: "pending", amount: 1000 });
    expect((await intentRow(declined.body.payment_intent_id)).status).toBe("requires_action");
    const refused = await call("PATCH", `/payments/${declined.body.id}`, terminal, {
      status: "declined",
      error_message: "insufficient funds",
    });
    expect(refused.body).toMatchObject({ status: "failed", failure_code: "declined" });
    expect((await intentRow(declined.body.payment_intent_id)).status).toBe("cancelled");
    expect(await billOf(bill.id)).toMatchObject({ status: "pending", paid_amount: 0 });

    const card = await pay({
      bill_id: bill.id,
      amount: 2684,
      payment_method: { type: "CREDIT_CARD" },
      payment_provider_method_id: 7,
    });
    expect(card.status).toBe(201);
    expect(card.body.payment_provider_method_id).toBe(7);
    expect((await call("GET", `/payments/${card.body.id}`, terminal)).body.payment_provider_method_id).toBe(7);
    expect(declined.body.payment_provider_method_id).toBeNull();
    const unknown = await pay({
      bill_id: bill.id,
      amount: 1,
      payment_method: { type: "CASH" },
      cash_received: 1,
      payment_provider_method_id: 0,
    });
    expect(unknown).toMatchObject({ status: 400, body: { details: { field: "payment_provider_method_id" } } });
    const unknownResult = await call("PATCH", `/payments/${card.body.id}`, terminal, { status: "approved" });
    expect(unknownResult).toMatchObject({ status: 400, body: { details: { field: "status", constraint: "enum" } } });
    const approved = await call("PATCH", `/payments/${card.body.id}`, terminal, {
      approval_code: "A12345",
      card_document_number: "SLIP-0001",
      card_last_4: "4242",
      card_brand: "VISA",
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      status: "completed",
      approval_code: "A12345",
      card_last_4: "4242",
      card_brand: "VISA",
    });
    expect((await intentRow(card.body.payment_intent_id)).status).toBe("succeeded");
    expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 2684 });
    const page = async (after?: string) => {
      const { body } = await postGraphQL(
        platform.baseUrl,
        `query($bill: ID!, $after: String) { posPayments(bill_id: $bill, limit: 1, after: $after) {
          nodes { id } total_count page_info { has_next_page end_cursor } } }`,
        { bill: bill.id, after },
        terminal,
      );
      return body.data.posPayments;
    };
    const newest = await page();
    expect(newest).toMatchObject({ nodes: [{ id: card.body.id }], total_count: 2, page_info: { has_next_page: true } });
    expect((await page(newest.page_info.end_cursor)).nodes).toEqual([{ id: declined.body.id }]);
    const again = await call("PATCH", `/payments/${card.body.id}`, terminal, {
      approval_code: "A12345",
      card_document_number: "SLIP-0001",
    });
    expect(again.status).toBe(409);
    expect(await billOf(bill.id)).toMatchObject({ paid_amount: 2684 });
  });

  it("completes a QR payment paid at the sandbox provider from the gateway's event, without the terminal", async () => {
    const { bill } = await billedOrder();
    const qr = await pay({ bill_id: bill.id, amount: 2684, payment_method: { type: "QR" } });
    expect(qr.status).toBe(201);
    expect(qr.body).toMatchObject({ status: "pending" });
    expect(qr.body.payment_token).toMatch(/^pt_/);
    // The terminal's web view confirms with the token; the customer pays the QR at the provider.
    const confirmed = await callGateway(
      platform.baseUrl,
      "POST",
      `/v1/payment_intents/${qr.body.payment_intent_id}/confirm`,
      { payment_token: qr.body.payment_token, payment_method_type: "qr_mpm", provider: "sandbox" },
    );
    expect(confirmed.status).toBe(200);
    const { provider_transaction_id } = await intentRow(qr.body.payment_intent_id);
    const paid = await fetch(`${sandboxUrl}/sandbox/transactions/${provider_transaction_id}/pay`, {
      method: "POST",
    });
    expect(paid.status).toBe(200);
    const row = await settledRow(qr.body.id);
    expect(row.status).toBe("completed");
    expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 2684 });
    // The event again changes nothing: it was applied once.
    const applied = await platform.pos.prisma.processedGatewayEvent.count();
    expect(applied).toBeGreaterThan(0);
  });

  it("completes a QR sale through PayPay (its protocol, spoken by the sandbox), learned by polling", async () => {
    const { bill } = await billedOrder();
    const qr = await pay({ bill_id: bill.id, amount: 2684, payment_method: { type: "QR" } });
    expect(qr.status).toBe(201);
    const confirmed = await callGateway(
      platform.baseUrl,
      "POST",
      `/v1/payment_intents/${qr.body.payment_intent_id}/confirm`,
      { payment_token: qr.body.payment_token, payment_method_type: "qr_mpm", provider: "paypay" },
    );
    expect(confirmed).toMatchObject({ status: 200, body: { provider: "paypay" } });
    // The code PayPay made opens the sandbox's pay page; the customer pays there.
    const paid = await fetch(String(confirmed.body.qr_content), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      redirect: "manual",
    });
    expect(paid.status).toBe(303);
    // PayPay sends no notification the gateway takes: a poll (this one, or the poll job's) learns the payment.
    await platform.payments.poller.pollOnce();
    await vi.waitFor(async () => expect((await intentRow(qr.body.payment_intent_id)).status).toBe("succeeded"));
    expect(await intentRow(qr.body.payment_intent_id)).toMatchObject({ provider_name: "paypay", amount: 2684 });
    const row = await settledRow(qr.body.id);
    expect(row.status).toBe("completed");
    expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 2684 });
  });

  it("pays a split bill by cash and card, each split on its own, the bill paid when both are", async () => {
    const { order, bill } = await billedOrder();
    const split = await call("POST", `/bills/${bill.id}/split`, terminal, {
      splits: [{ amount: 1684 }, { amount: 1000 }],
    });
    expect(split.status).toBe(200);
    const [first, second] = split.body.splits as { id: string }[];
    const cash = await pay({
      bill_id: bill.id,
      split_id: first!.id,
      amount: 1684,
      payment_method: { type: "CASH" },
      cash_received: 2000,
    });
    expect(cash.body).toMatchObject({ status: "completed", change_amount: 316, split_id: first!.id });
    expect(await billOf(bill.id)).toMatchObject({ status: "partial", paid_amount: 1684, remaining_amount: 1000 });
    // A split takes no more than its own amount.
    const over = await pay({
      bill_id: bill.id,
      split_id: second!.id,
      amount: 1001,
      payment_method: { type: "CREDIT_CARD" },
    });
    expect(over.status).toBe(400);
    const card = await pay({
      bill_id: bill.id,
      split_id: second!.id,
      amount: 1000,
      payment_method: { type: "CREDIT_CARD" },
    });
    const approved = await call("PATCH", `/payments/${card.body.id}`, terminal, {
      approval_code: "B77777",
      card_document_number: "SLIP-0002",
      card_last_4: "1881",
      card_brand: "JCB",
    });
    expect(approved.body.status).toBe("completed");
    const paid = await billOf(bill.id);
    expect(paid).toMatchObject({ status: "paid", paid_amount: 2684, remaining_amount: 0 });
    expect(paid.splits.map((each: { status: string }) => each.status)).toEqual(["paid", "paid"]);
    expect((await call("GET", `/orders/${order.id}`, terminal)).body.status).toBe("completed");
  });

  // The late-card rule (issue 21): a card approved after its bill was cancelled was refused and its money lost.
  describe("a bill with a payment in flight cannot be ended", () => {
    const approval = {
      approval_code: "L21000",
      card_document_number: "SLIP-2100",
      card_last_4: "4242",
      card_brand: "VISA",
    };
    const inFlight = (payment: { id: string }) => ({
      status: 409,
      body: {
        code: "invalid_state",
        message: expect.stringContaining(payment.id),
        details: { constraint: "no_payment_in_flight", payments: [{ payment_id: payment.id, method: "CREDIT_CARD" }] },
      },
    });

    it("refuses the cancel naming the card payment, then records the card's approval: the bill is paid", async () => {
      const { bill } = await billedOrder();
      const card = await pay({ bill_id: bill.id, amount: 2500, payment_method: { type: "CREDIT_CARD" } });
      expect(card.body.status).toBe("pending");
      expect(await call("POST", `/api/v1/bills/${bill.id}/cancel`, terminal)).toMatchObject(inFlight(card.body));
      const approved = await call("PATCH", `/api/v1/payments/${card.body.id}`, terminal, approval);
      expect(approved).toMatchObject({ status: 200, body: { status: "completed", approval_code: "L21000" } });
      expect(await billOf(bill.id)).toMatchObject({ status: "partial", paid_amount: 2500, remaining_amount: 184 });
      // Once money is in, the bill cannot be cancelled at all (refund first), as before.
      expect((await call("POST", `/api/v1/bills/${bill.id}/cancel`, terminal)).status).toBe(409);
    });

    it("cancels the bill once the card app reported a failure", async () => {
      const { bill } = await billedOrder();
      const card = await pay({ bill_id: bill.id, amount: 2684, payment_method: { type: "CREDIT_CARD" } });
      expect((await call("POST", `/bills/${bill.id}/cancel`, terminal)).status).toBe(409);
      const failed = await call("PATCH", `/payments/${card.body.id}`, terminal, { status: "cancelled" });
      expect(failed.body.status).toBe("failed");
      const cancelled = await call("POST", `/bills/${bill.id}/cancel`, terminal);
      expect(cancelled).toMatchObject({ status: 200, body: { status: "cancelled" } });
      // A payment started after the cancel is refused: the bill is read again under its payment lock.
      const late = await pay({ bill_id: bill.id, amount: 100, payment_method: { type: "CREDIT_CARD" } });
      expect(late).toMatchObject({ status: 409, body: { code: "invalid_state" } });
      expect(await platform.pos.prisma.payment.count({ where: { bill_id: bill.id } })).toBe(1);
    });

    it("refuses to split or combine a bill, or close the store's day, while its card payment is in flight", async () => {
      const first = await billedOrder();
      const second = await billedOrder();
      const card = await pay({ bill_id: first.bill.id, amount: 1000, payment_method: { type: "CREDIT_CARD" } });
      const split = await call("POST", `/bills/${first.bill.id}/split`, terminal, {
        splits: [{ amount: 1684 }, { amount: 1000 }],
      });
      expect(split).toMatchObject(inFlight(card.body));
      const combine = await call("POST", "/bills/combine", terminal, {
        table_numbers: [first.order.table_number, second.order.table_number],
        staff_code: staffCode,
      });
      expect(combine).toMatchObject(inFlight(card.body));
      const date = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo" }).format(new Date());
      const storeManager = await seed(platform).user("STORE_MANAGER", store);
      const approved = { staff_code: storeManager.login_id, staff_pin: storeManager.password };
      const opened = await call("POST", "/settlements", terminal, { date, ...approved });
      expect(opened.status).toBe(201);
      const close = await call("POST", `/settlements/${opened.body.id}/close`, terminal, approved);
      expect(close.status).toBe(409);
      expect(close.body.details.payments).toContainEqual({
        payment_id: card.body.id,
        method: "CREDIT_CARD",
        bill_id: first.bill.id,
      });
      expect(await billOf(first.bill.id)).toMatchObject({ status: "pending", is_split: false });
      expect(await billOf(second.bill.id)).toMatchObject({ status: "pending" });

      const declined = await call("PATCH", `/payments/${card.body.id}`, terminal, { status: "declined" });
      expect(declined.body.status).toBe("failed");
      const combined = await call("POST", "/bills/combine", terminal, {
        table_numbers: [first.order.table_number, second.order.table_number],
        staff_code: staffCode,
      });
      expect(combined).toMatchObject({ status: 201, body: { total_amount: 5368 } });
      const again = await call("POST", `/settlements/${opened.body.id}/close`, terminal, approved);
      expect(again.body.details?.payments ?? []).not.toContainEqual(
        expect.objectContaining({ payment_id: card.body.id }),
      );
    });

    it("fails a card payment whose intent is cancelled at the gateway, which frees its bill", async () => {
      const { bill } = await billedOrder();
      const card = await pay({ bill_id: bill.id, amount: 2684, payment_method: { type: "CREDIT_CARD" } });
      expect(card.body.payment_token).toMatch(/^pt_/);
      const cancelled = await callGateway(
        platform.baseUrl,
        "POST",
        `/v1/payment_intents/${card.body.payment_intent_id}/cancel`,
        { payment_token: card.body.payment_token },
      );
      expect(cancelled.status).toBe(200);
      expect(await settledRow(card.body.id)).toMatchObject({ status: "failed", failure_code: "cancelled" });
      expect((await call("POST", `/bills/${bill.id}/cancel`, terminal)).status).toBe(200);
    });
  });

  it("pays two tables' combined bill by QR: the sandbox's signed webhook settles it, the sources closed", async () => {
    const tables = [await billedOrder(), await billedOrder()];
    const combined = await call("POST", "/bills/combine", terminal, {
      table_numbers: tables.map(({ order }) => order.table_number),
      staff_code: staffCode,
    });
    expect(combined.status).toBe(201);
    expect(combined.body).toMatchObject({ total_amount: 5368, is_combined: true });
    expect([...combined.body.combined_bill_ids].sort()).toEqual(tables.map(({ bill }) => bill.id).sort());
    // A source bill is closed: it cannot be paid a second time.
    const twice = await pay({
      bill_id: tables[0]!.bill.id,
      amount: 2684,
      payment_method: { type: "CASH" },
      cash_received: 3000,
    });
    expect(twice.status).toBe(409);
    const qr = await pay({ bill_id: combined.body.id, amount: 5368, payment_method: { type: "QR" } });
    const confirmed = await callGateway(
      platform.baseUrl,
      "POST",
      `/v1/payment_intents/${qr.body.payment_intent_id}/confirm`,
      { payment_token: qr.body.payment_token, payment_method_type: "qr_mpm", provider: "sandbox" },
    );
    expect(confirmed.status).toBe(200);
    // The customer scans and pays; the sandbox notifies the gateway's webhook, which moves the POS payment.
    const paid = await fetch(`${String(confirmed.body.qr_content).replace("/pay/", "/sandbox/transactions/")}/pay`, {
      method: "POST",
    });
    expect(paid.status).toBe(200);
    expect((await settledRow(qr.body.id)).status).toBe("completed");
    expect(await billOf(combined.body.id)).toMatchObject({ status: "paid", paid_amount: 5368 });
    expect((await intentRow(qr.body.payment_intent_id)).status).toBe("succeeded");
  });

  it("never overpays a bill under concurrent payments", async () => {
    const { bill } = await billedOrder();
    const attempts = await Promise.all(
      Array.from({ length: 4 }, () =>
        pay({ bill_id: bill.id, amount: 2000, payment_method: { type: "CASH" }, cash_received: 2000 }),
      ),
    );
    expect(attempts.map((a) => a.status).sort()).toEqual([201, 400, 400, 400]);
    expect(attempts.find((a) => a.status === 400)!.body).toMatchObject({ details: { field: "amount" } });
    expect(await billOf(bill.id)).toMatchObject({ status: "partial", paid_amount: 2000 });
    const listed = await call("GET", `/payments?bill_id=${bill.id}`, terminal);
    expect(listed.body).toHaveLength(1);
  });

  it("replays an Idempotency-Key and refuses it for other parameters", async () => {
    const { bill } = await billedOrder();
    const key = randomUUID();
    const body = { bill_id: bill.id, amount: 1000, payment_method: { type: "CASH" }, cash_received: 1000 };
    const first = await pay(body, key);
    expect(first.status).toBe(201);
    const replay = await pay(
      { cash_received: 1000, payment_method: { type: "CASH" }, amount: 1000, bill_id: bill.id },
      key,
    );
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    const other = await pay({ ...body, amount: 500 }, key);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("idempotency_conflict");
    expect(await billOf(bill.id)).toMatchObject({ paid_amount: 1000 });
  });

  /**
   * The key a request killed mid-payment leaves (claimed `minutesAgo` for `payment_id`, no answer): a real kill -9
   * cannot be timed inside the cash transaction, so the test writes the row the claim wrote.
   */
  const killedKey = (key: string, body: Record<string, unknown>, payment_id: string, minutesAgo = 5) =>
    platform.pos.prisma.paymentIdempotencyKey.create({
      data: {
        store_id: store.id,
        idempotency_key: key,
        request_hash: idempotencyRequest(key, "createPosPayment", { input: parseInput(paymentCreate, body) })!
          .request_hash,
        status: "processing",
        created_at: new Date(Date.now() - minutesAgo * 60_000),
        expires_at: new Date(Date.now() + 24 * 60 * 60_000),
        payment_id,
      },
    });

  it("after a crash mid cash payment, recovery releases its key and the retry pays once, under the same intent", async () => {
    const { bill } = await billedOrder();
    const key = randomUUID();
    const body = { bill_id: bill.id, amount: 2684, payment_method: { type: "CASH" }, cash_received: 3000 };
    // Killed after the gateway recorded the cash intent, before the POS committed: the intent and the claim remain.
    const payment_id = randomUUID();
    const recorded = await platform.pos.gateway.createIntent(
      {
        amount: 2684,
        currency: "JPY",
        payment_method_types: ["cash"],
        processing_mode: "manual",
        merchant_ref_id: `pos-${payment_id}`,
        merchant_store_id: String(store.id),
        order_id: bill.id,
        description: `POS payment ${payment_id}`,
      },
      `pos-payment-${payment_id}`,
    );
    await killedKey(key, body, payment_id);
    const stuck = await pay(body, key);
    expect(stuck.status).toBe(409);
    expect(stuck.body).toMatchObject({ code: "idempotency_conflict" });

    expect(await platform.pos.payments.recoverStalePayments()).toEqual([]);
    const retried = await pay(body, key);
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ id: payment_id, status: "completed", payment_intent_id: recorded.id });
    const again = await pay(body, key);
    expect(again.body).toEqual(retried.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 2684 });
    expect(await platform.pos.prisma.payment.count({ where: { bill_id: bill.id } })).toBe(1);
    const intents = await platform.payments.prisma.paymentIntent.findMany({
      where: { merchant_ref_id: `pos-${payment_id}` },
    });
    expect(intents.map((intent) => [intent.id, intent.status])).toEqual([[recorded.id, "succeeded"]]);
  });

  // In-process only: it stops the POS's own gateway client, which under TEST_WIRING=cluster runs in another process.
  inProcessOnly(
    "after a crash between the cash payment's gateway call and its completion, recovery completes it once",
    async () => {
      const { bill } = await billedOrder();
      const key = randomUUID();
      const body = { bill_id: bill.id, amount: 2684, payment_method: { type: "CASH" }, cash_received: 3000 };
      // The gateway records the cash, then the request stops as if its process died: no transaction is open meanwhile.
      // Its body's keys in another order: the gateway matches a key's request by meaning, and other bytes sign
      // differently, so the recovery's call in the same second is not refused as a replayed signature.
      const { gateway } = platform.pos;
      const createIntent = gateway.createIntent.bind(gateway);
      let recorded!: () => void;
      const called = new Promise<void>((resolve) => {
        recorded = resolve;
      });
      let resume!: () => void;
      const dead = new Promise<void>((resolve) => {
        resume = resolve;
      });
      vi.spyOn(gateway, "createIntent").mockImplementationOnce(async (intentBody, intentKey) => {
        const intent = await createIntent(Object.fromEntries(Object.entries(intentBody).reverse()), intentKey);
        recorded();
        await dead;
        return intent;
      });
      const request = pay(body, key);
      await called;
      const [pending] = await platform.pos.prisma.payment.findMany({ where: { bill_id: bill.id } });
      expect(pending).toMatchObject({ status: "pending", method_type: "CASH", payment_intent_id: null });
      // The bill's lock was released with the first transaction: the amount is held, nothing more can be paid.
      expect((await pay({ ...body, amount: 1, cash_received: 1 })).body).toMatchObject({
        details: { field: "amount" },
      });

      // Two passes at once, minutes later (`now`): one takes the lease, the other leaves the payment alone.
      const later = new Date(Date.now() + 5 * 60_000);
      const passes = await Promise.all([1, 2].map(() => platform.pos.payments.recoverStalePayments(later)));
      expect(passes.flat()).toEqual([pending!.id]);
      const intents = await platform.payments.prisma.paymentIntent.findMany({
        where: { merchant_ref_id: `pos-${pending!.id}` },
      });
      expect(intents.map((intent) => intent.status)).toEqual(["succeeded"]);
      const completed = await platform.pos.prisma.payment.findUniqueOrThrow({ where: { id: pending!.id } });
      expect(completed).toMatchObject({ status: "completed", payment_intent_id: intents[0]!.id, change_amount: 316 });
      expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 2684 });

      // The request wakes up late: it finds the payment completed and changes nothing; its key answers the payment.
      resume();
      expect((await request).body).toMatchObject({ id: pending!.id, status: "completed" });
      const retried = await pay(body, key);
      expect(retried.body).toMatchObject({ id: pending!.id, status: "completed", payment_intent_id: intents[0]!.id });
      expect(await platform.pos.payments.recoverStalePayments(later)).toEqual([]);
      expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 2684 });
      expect(await platform.pos.prisma.receipt.count({ where: { payment_id: pending!.id } })).toBe(1);
    },
  );

  it("after a crash mid card payment, recovery fails the payment and its key answers it; recent keys stay", async () => {
    const { bill } = await billedOrder();
    const body = { bill_id: bill.id, amount: 2684, payment_method: { type: "CREDIT_CARD" } };
    // Killed after the payment's first transaction committed (pending, no intent): its row and its claim remain.
    const started = await pay({ ...body, amount: 100 });
    const real = await platform.pos.prisma.payment.findUniqueOrThrow({ where: { id: started.body.id } });
    await platform.pos.prisma.payment.update({ where: { id: real.id }, data: { status: "failed" } });
    const payment_id = randomUUID();
    await platform.pos.prisma.payment.create({
      data: {
        ...real,
        id: payment_id,
        amount: 2684,
        total_amount: 2684,
        status: "pending",
        payment_intent_id: null,
        payment_token: null,
        created_at: new Date(Date.now() - 5 * 60_000),
      },
    });
    const key = randomUUID();
    await killedKey(key, body, payment_id);
    const recentKey = randomUUID();
    await killedKey(recentKey, { ...body, amount: 1 }, randomUUID(), 0);

    expect(await platform.pos.payments.recoverStalePayments()).toContain(payment_id);
    const retried = await pay(body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(retried.body).toMatchObject({ id: payment_id, status: "failed", failure_code: "gateway_error" });
    // Nothing was paid, and the bill takes a new payment.
    expect(await billOf(bill.id)).toMatchObject({ paid_amount: 0 });
    const cash = await pay({ bill_id: bill.id, amount: 2684, payment_method: { type: "CASH" }, cash_received: 2684 });
    expect(cash.status).toBe(201);
    // A key claimed a moment ago may still have its request running: it is left alone.
    expect((await pay({ ...body, amount: 1 }, recentKey)).body).toMatchObject({ code: "idempotency_conflict" });
  });

  it("refuses bad input with the field and changes nothing", async () => {
    const { bill } = await billedOrder();
    const bad = async (body: Record<string, unknown>, field: string) => {
      const response = await pay({ bill_id: bill.id, ...body });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: "invalid_request", details: { field } });
    };
    await bad({ amount: 1000, payment_method: { type: "CASH" }, cash_received: 999 }, "cash_received");
    await bad({ amount: 1000, payment_method: { type: "CASH" } }, "cash_received");
    await bad({ amount: 0, payment_method: { type: "CASH" }, cash_received: 10 }, "amount");
    await bad({ amount: 2685, payment_method: { type: "CASH" }, cash_received: 3000 }, "amount");
    await bad({ amount: 100, payment_method: { type: "BITCOIN" } }, "payment_method.type");
    await bad({ amount: 100, payment_method: { type: "CREDIT_CARD" }, card_number: "4242424242424242" }, "card_number");
    const card = await pay({ bill_id: bill.id, amount: 100, payment_method: { type: "CREDIT_CARD" } });
    const patch = await call("PATCH", `/payments/${card.body.id}`, terminal, { approval_code: "A1", cvv: "123" });
    expect(patch.status).toBe(400);
    expect(patch.body.details.field).toBe("cvv");
    expect(await billOf(bill.id)).toMatchObject({ status: "pending", paid_amount: 0 });
    const listed = await call("GET", `/payments?bill_id=${bill.id}`, terminal);
    expect(listed.body.map((p: { status: string }) => p.status)).toEqual(["pending"]);
  });

  it("does not show another store's bill or payment", async () => {
    const { bill } = await billedOrder();
    const paid = await pay({ bill_id: bill.id, amount: 100, payment_method: { type: "CASH" }, cash_received: 100 });
    const foreign = await call("POST", "/api/v1/payments", outsider, {
      bill_id: bill.id,
      amount: 100,
      payment_method: { type: "CASH" },
      cash_received: 100,
    });
    expect(foreign.status).toBe(404);
    expect((await call("GET", `/api/v1/payments/${paid.body.id}`, outsider)).status).toBe(404);
    expect(await billOf(bill.id)).toMatchObject({ paid_amount: 100 });
  });

  it("recovers card and QR payments a crash left pending without their intent, and leaves recent ones alone", async () => {
    const now = new Date();
    const lost = await billedOrder(); // crashed before the gateway made the intent
    const made = await billedOrder(); // crashed after the gateway made it, before the payment recorded it
    const recent = await billedOrder();
    // The columns the API writes for a card or QR payment, from a real one in flight.
    const started = await pay({ bill_id: recent.bill.id, amount: 100, payment_method: { type: "CREDIT_CARD" } });
    expect(started.status).toBe(201);
    const real = await platform.pos.prisma.payment.findUniqueOrThrow({ where: { id: started.body.id } });
    const crashed = (bill_id: string, method_type: string, amount: number, created_at: Date) =>
      platform.pos.prisma.payment.create({
        data: {
          id: randomUUID(),
          merchant_id: real.merchant_id,
          store_id: real.store_id,
          device_id: real.device_id,
          bill_id,
          split_id: null,
          amount,
          total_amount: amount,
          method_type,
          provider: null,
          status: "pending",
          created_at,
        },
      });
    const fiveMinutesAgo = new Date(now.getTime() - 5 * 60_000);
    const qr = await crashed(lost.bill.id, "QR", 2684, fiveMinutesAgo);
    const card = await crashed(made.bill.id, "CREDIT_CARD", 2684, fiveMinutesAgo);
    const fresh = await crashed(recent.bill.id, "QR", 500, now);
    // The intent the card payment asked for before the crash. Its keys in another order: the gateway matches a key's
    // request by meaning, and other bytes sign differently, so the recovery's call in the same second is not refused
    // as a replayed signature (a real recovery comes minutes later).
    const madeIntent = await platform.pos.gateway.createIntent(
      {
        description: `POS payment ${card.id}`,
        order_id: made.bill.id,
        merchant_store_id: String(card.store_id),
        merchant_ref_id: `pos-${card.id}`,
        processing_mode: "external",
        payment_method_types: ["credit_card"],
        currency: "JPY",
        amount: 2684,
      },
      `pos-payment-${card.id}`,
    );
    const cash = { amount: 2684, payment_method: { type: "CASH" }, cash_received: 2684 };
    // Pending, the lost payment holds its whole bill.
    expect((await pay({ bill_id: lost.bill.id, ...cash })).status).toBe(400);

    const recovered = await platform.pos.payments.recoverStalePayments(now);
    expect(recovered).not.toContain(fresh.id);
    for (const payment of [qr, card]) {
      const row = await platform.pos.prisma.payment.findUniqueOrThrow({ where: { id: payment.id } });
      expect(row).toMatchObject({
        status: "failed",
        payment_intent_id: null,
        failure_code: "gateway_error",
        failure_message: "interrupted before the intent was recorded; cancelled by recovery",
      });
      // One intent per payment at the gateway (the key replayed the one made before the crash), cancelled.
      const intents = await platform.payments.prisma.paymentIntent.findMany({
        where: { merchant_ref_id: `pos-${payment.id}` },
      });
      expect(intents.map((intent) => intent.status)).toEqual(["cancelled"]);
    }
    expect((await intentRow(madeIntent.id)).status).toBe("cancelled");
    // The bills are free again: the full amount is paid.
    for (const { bill } of [lost, made]) {
      expect((await pay({ bill_id: bill.id, ...cash })).status).toBe(201);
      expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 2684 });
    }
    // The recent payment is left alone, and a second pass finds nothing more to do.
    expect(await platform.pos.payments.recoverStalePayments(now)).toEqual([]);
    expect(await platform.pos.prisma.payment.findUniqueOrThrow({ where: { id: fresh.id } })).toMatchObject({
      status: "pending",
      payment_intent_id: null,
    });
    expect(await platform.payments.prisma.paymentIntent.count({ where: { merchant_ref_id: `pos-${fresh.id}` } })).toBe(
      0,
    );
    await platform.pos.prisma.payment.update({ where: { id: fresh.id }, data: { status: "failed" } });
  });
});
