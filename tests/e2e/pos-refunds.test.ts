import { randomUUID } from "node:crypto";
import { AppError } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DemoUser } from "../../apps/platform/src/demo";
import { deviceToken, humanToken } from "../support/device";
import { call as callGateway } from "../support/gateway";
import { logIn, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { seedBranch } from "../support/portal-seed";
import { type SeededDevice, type SeededStore, seed } from "../support/seed";

// Refunds of a terminal's payments through REST: cash, card and QR, full and partial, with their bill effects.
describe("POS refunds", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  let device: SeededDevice;
  /** The staff leader who approves refunds. */
  let leader: DemoUser;
  /** The sandbox QR provider's address, where a customer's payment is made. */
  let sandboxUrl: string;
  let terminal: string;
  let manager: string;
  let outsider: string;
  let staffCode: string;
  let leaderCode: string;
  let leaderPin: string;
  let staff: string;
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

  /** A billed order at a table of its own: 2 x 980 + 480 = 2440, tax 244, total 2684. */
  async function billedOrder() {
    const order = await call("POST", "/orders", terminal, {
      order_type: "dine_in",
      table_number: `R${++table}`,
      items: [
        { sequence: 1, item_name: "Ramen", quantity: 2, unit_price: 980 },
        { sequence: 2, item_name: "Gyoza", quantity: 1, unit_price: 480 },
      ],
    });
    const bill = await call("POST", "/bills", terminal, {
      order_id: order.body.id,
      staff_code: staffCode,
      tax_percentage: 10,
    });
    expect(bill.body.total_amount).toBe(2684);
    return bill.body;
  }

  const cash = async (billId: string, amount: number) => {
    const paid = await call("POST", "/payments", terminal, {
      bill_id: billId,
      amount,
      payment_method: { type: "CASH" },
      cash_received: amount,
    });
    expect(paid.status).toBe(201);
    return paid.body;
  };
  /** A terminal is below L5: unless a test says otherwise, it gives the staff leader's PIN with the staff code. */
  const refund = (paymentId: string, body: Record<string, unknown>, token = terminal, key?: string) =>
    call(
      "POST",
      `/payments/${paymentId}/refund`,
      token,
      token === terminal && !("staff_pin" in body) ? { ...body, staff_pin: leaderPin } : body,
      key ? { "idempotency-key": key } : {},
    );
  const billOf = async (id: string) => (await call("GET", `/bills/${id}`, terminal)).body;
  const refundsOf = (payment_id: string) => platform.pos.prisma.posRefund.findMany({ where: { payment_id } });

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    store = await seed(platform).store({ sells: true });
    sandboxUrl = seed(platform).providers().provider.base_url;
    device = await seed(platform).device(store);
    terminal = await deviceToken(platform.baseUrl, device);
    manager = await humanToken(platform.portal, {
      role: "STORE_MANAGER",
      psp_id: store.psp_id,
      merchant_id: store.merchant_id,
      store_id: store.id,
    });
    const other = await seedBranch(platform.portal);
    outsider = await humanToken(platform.portal, {
      role: "MERCHANT_ADMIN",
      psp_id: other.psp.id,
      merchant_id: other.merchant.id,
    });
    staffCode = (await seed(platform).user("STAFF", store)).login_id;
    leader = await seed(platform).user("STAFF_LEADER", store);
    leaderCode = leader.login_id;
    leaderPin = leader.pin!;
    staff = await humanToken(platform.portal, {
      role: "STAFF",
      psp_id: store.psp_id,
      merchant_id: store.merchant_id,
      store_id: store.id,
    });
  });
  afterAll(() => platform?.close());

  it("refunds a cash payment in part and then in full: the bill's paid amount follows and it ends cancelled", async () => {
    const bill = await billedOrder();
    const payment = await cash(bill.id, 2684);
    const part = await refund(payment.id, { refund_amount: 684, reason: "cold ramen", staff_code: leaderCode });
    expect(part.status).toBe(201);
    expect(part.body).toMatchObject({ amount: 684, status: "succeeded", staff_code: leaderCode, reason: "cold ramen" });
    expect(part.body.payment).toMatchObject({ status: "completed", refund_amount: 684, refund_reason: "cold ramen" });
    expect(await billOf(bill.id)).toMatchObject({
      status: "paid",
      paid_amount: 2000,
      refunded_amount: 684,
      remaining_amount: 0,
    });
    const rest = await refund(
      payment.id,
      { refund_amount: 2000, reason: "left", staff_code: leaderCode, staff_pin: leaderPin },
      manager,
    );
    expect(rest.status).toBe(201);
    expect(rest.body.payment).toMatchObject({ status: "refunded", refund_amount: 2684 });
    expect(await billOf(bill.id)).toMatchObject({ status: "cancelled", paid_amount: 0, refunded_amount: 2684 });
    // The gateway recorded both refunds of the manual intent.
    const atGateway = await platform.payments.prisma.refund.findMany({
      where: { payment_intent_id: payment.payment_intent_id },
    });
    expect(atGateway.map((r) => [r.amount, r.status])).toEqual(
      expect.arrayContaining([
        [684, "succeeded"],
        [2000, "succeeded"],
      ]),
    );
    const status = await call("GET", `/payments/${payment.id}/refund-status`, terminal);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      payment_id: payment.id,
      payment_status: "refunded",
      amount: 2684,
      refund_amount: 2684,
      pending_amount: 0,
      refundable_amount: 0,
    });
    expect(status.body.refunds).toHaveLength(2);
    // A refunded payment gives nothing more.
    const more = await refund(payment.id, { refund_amount: 1, reason: "again", staff_code: leaderCode });
    expect(more.status).toBe(409);
  });

  it("records two refunds of one payment with the same amount and reason in the same second", async () => {
    const bill = await billedOrder();
    const payment = await cash(bill.id, 2684);
    const same = { refund_amount: 100, reason: "cold ramen", staff_code: leaderCode };
    // Sent together, their calls to the gateway carry the same amount, reason and (mostly) second.
    const answers = await Promise.all([refund(payment.id, same), refund(payment.id, same)]);
    expect(answers.map((answer) => [answer.status, answer.body.status])).toEqual([
      [201, "succeeded"],
      [201, "succeeded"],
    ]);
    const atGateway = await platform.payments.prisma.refund.findMany({
      where: { payment_intent_id: payment.payment_intent_id },
    });
    expect(atGateway.map((r) => [r.amount, r.status])).toEqual([
      [100, "succeeded"],
      [100, "succeeded"],
    ]);
    const ledger = await platform.payments.prisma.ledgerTransaction.findMany({
      where: { payment_intent_id: payment.payment_intent_id, type: "refunded" },
    });
    expect(ledger.map((entry) => entry.amount)).toEqual([100, 100]);
    expect(await billOf(bill.id)).toMatchObject({ paid_amount: 2484, refunded_amount: 200 });
  });

  it("refuses a refund over the amount, bad input and a staff member below L5, changing nothing", async () => {
    const bill = await billedOrder();
    const payment = await cash(bill.id, 2684);
    const over = await refund(payment.id, { refund_amount: 2685, reason: "too much", staff_code: leaderCode });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({
      code: "invalid_request",
      details: { field: "refund_amount", constraint: "refundable_amount" },
    });
    for (const body of [
      { refund_amount: 0, reason: "zero", staff_code: leaderCode },
      { refund_amount: 10.5, reason: "fraction", staff_code: leaderCode },
      { refund_amount: 10, reason: "", staff_code: leaderCode },
      { refund_amount: 10, reason: "no staff" },
      { refund_amount: 10, reason: "unknown staff", staff_code: "SLR-XXX-000" },
    ]) {
      const refused = await refund(payment.id, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.code).toBe("invalid_request");
    }
    const staff = await refund(payment.id, { refund_amount: 10, reason: "staff", staff_code: staffCode });
    expect(staff.status).toBe(403);
    expect(staff.body.details).toMatchObject({ field: "staff_code" });
    expect(await refundsOf(payment.id)).toHaveLength(0);
    expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 2684, refunded_amount: 0 });
    // Another merchant's user does not find the payment.
    const foreign = await refund(payment.id, { refund_amount: 10, reason: "x", staff_code: leaderCode }, outsider);
    expect(foreign.status).toBe(404);
    expect((await call("GET", `/api/v1/payments/${payment.id}/refund-status`, outsider)).status).toBe(404);
    expect((await call("GET", `/payments/${randomUUID()}/refund-status`, terminal)).status).toBe(404);
  });

  it("never refunds more than was paid under concurrent refunds, and replays an Idempotency-Key", async () => {
    const bill = await billedOrder();
    const payment = await cash(bill.id, 2684);
    const attempts = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        refund(payment.id, { refund_amount: 1000, reason: `race ${i}`, staff_code: leaderCode }),
      ),
    );
    expect(attempts.map((a) => a.status).sort()).toEqual([201, 201, 400, 400]);
    expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 684, refunded_amount: 2000 });

    const key = randomUUID();
    const body = { refund_amount: 684, reason: "keyed", staff_code: leaderCode };
    const first = await refund(payment.id, body, terminal, key);
    const again = await refund(payment.id, body, terminal, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    const other = await refund(payment.id, { ...body, reason: "other" }, terminal, key);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("idempotency_conflict");
    expect((await refundsOf(payment.id)).filter((r) => r.status === "succeeded")).toHaveLength(3);
    expect(await billOf(bill.id)).toMatchObject({ status: "cancelled", paid_amount: 0, refunded_amount: 2684 });
  });

  it("keeps a refund the gateway did not answer pending, and its key answers it: a retry does not refund twice", async () => {
    const bill = await billedOrder();
    const payment = await cash(bill.id, 2684);
    vi.spyOn(platform.pos.gateway, "refund").mockRejectedValueOnce(
      new AppError("bad_gateway", "the payment gateway failed: 502"),
    );
    const key = randomUUID();
    const body = { refund_amount: 1000, reason: "no answer", staff_code: leaderCode };
    const failed = await refund(payment.id, body, terminal, key);
    expect(failed.status).toBe(502);
    const [pending] = await refundsOf(payment.id);
    expect(pending).toMatchObject({ status: "pending", amount: 1000 });
    const again = await refund(payment.id, body, terminal, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toMatchObject({ id: pending!.id, status: "pending" });
    expect(await refundsOf(payment.id)).toHaveLength(1);
  });

  it("has the recovery pass send a refund left pending again once, under its lease, when two passes run at once", async () => {
    const bill = await billedOrder();
    const payment = await cash(bill.id, 2684);
    const gatewayRefund = vi.spyOn(platform.pos.gateway, "refund");
    gatewayRefund.mockRejectedValueOnce(new AppError("bad_gateway", "the payment gateway failed: 502"));
    const body = { refund_amount: 700, reason: "lost answer", staff_code: leaderCode };
    expect((await refund(payment.id, body)).status).toBe(502);
    const [pending] = await refundsOf(payment.id);
    const sentAgain = () => gatewayRefund.mock.calls.filter(([, , , key]) => key === `pos-refund-${pending!.id}`);
    expect(sentAgain()).toHaveLength(1);

    const later = new Date(Date.now() + 5 * 60_000);
    const passes = await Promise.all([1, 2].map(() => platform.pos.refunds.recoverStale(later)));
    expect(passes.flat().filter((id) => id === pending!.id)).toEqual([pending!.id]);
    expect(sentAgain()).toHaveLength(2);
    const [recovered] = await refundsOf(payment.id);
    expect(recovered).toMatchObject({ status: "succeeded", amount: 700 });
    expect(recovered!.recovery_locked_until!.getTime()).toBeGreaterThan(later.getTime());
    expect((await platform.pos.refunds.recoverStale(later)).includes(pending!.id)).toBe(false);
    gatewayRefund.mockRestore();
  });

  it("refunds one payment of a bill paid by two: the bill stays paid with a smaller paid amount", async () => {
    const bill = await billedOrder();
    const first = await cash(bill.id, 1000);
    const card = await call("POST", "/payments", terminal, {
      bill_id: bill.id,
      amount: 1684,
      payment_method: { type: "CREDIT_CARD" },
    });
    const approved = await call("PATCH", `/payments/${card.body.id}`, terminal, {
      approval_code: "A1",
      card_document_number: "SLIP-1",
      card_last_4: "4242",
    });
    expect(approved.body.status).toBe("completed");
    const full = await refund(card.body.id, { refund_amount: 1684, reason: "card void", staff_code: leaderCode });
    expect(full.status).toBe(201);
    expect(full.body.payment.status).toBe("refunded");
    expect(await billOf(bill.id)).toMatchObject({ status: "paid", paid_amount: 1000, refunded_amount: 1684 });
    expect((await call("GET", `/payments/${first.id}/refund-status`, terminal)).body.refundable_amount).toBe(1000);
  });

  it("refunds a QR payment at the sandbox provider through the gateway", async () => {
    const bill = await billedOrder();
    const qr = await call("POST", "/payments", terminal, {
      bill_id: bill.id,
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
    const intent = await platform.payments.prisma.paymentIntent.findUniqueOrThrow({
      where: { id: qr.body.payment_intent_id },
    });
    const paid = await fetch(`${sandboxUrl}/sandbox/transactions/${intent.provider_transaction_id}/pay`, {
      method: "POST",
    });
    expect(paid.status).toBe(200);
    const statusOf = async () =>
      (await platform.pos.prisma.payment.findUniqueOrThrow({ where: { id: qr.body.id } })).status;
    await expect.poll(statusOf, { timeout: 20_000 }).not.toBe("pending");
    const done = await refund(qr.body.id, { refund_amount: 2684, reason: "wrong table", staff_code: leaderCode });
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ status: "succeeded", amount: 2684 });
    const atGateway = await platform.payments.prisma.refund.findFirstOrThrow({
      where: { payment_intent_id: qr.body.payment_intent_id },
    });
    expect(atGateway).toMatchObject({ status: "succeeded", amount: 2684 });
    expect(atGateway.provider_refund_id).toBeTruthy();
    expect(done.body.gateway_refund_id).toBe(atGateway.id);
    expect(await billOf(bill.id)).toMatchObject({ status: "cancelled", paid_amount: 0 });
  });

  // Issue 21: a login id is printed on receipts, so below L5 it is no authority without the approver's PIN.
  describe("a refund's approval", () => {
    const audited = (refund_id: string) =>
      platform.portal.prisma.auditLog.findMany({
        where: { event: "payment.refund_approved", metadata: { path: ["refund_id"], equals: refund_id } },
      });

    it("refuses a staff (L6) caller with only a login id, and an L5 token refunds without a PIN", async () => {
      const payment = await cash((await billedOrder()).id, 2684);
      const bare = await refund(payment.id, { refund_amount: 100, reason: "login id", staff_code: leaderCode }, staff);
      expect(bare).toMatchObject({
        status: 400,
        body: { code: "invalid_request", details: { field: "staff_pin", constraint: "required" } },
      });
      const terminalBare = await refund(payment.id, {
        refund_amount: 100,
        reason: "login id",
        staff_code: leaderCode,
        staff_pin: undefined,
      });
      expect(terminalBare.body.details).toMatchObject({ field: "staff_pin" });
      expect(await refundsOf(payment.id)).toEqual([]);
      const own = (await logIn(platform.baseUrl, leader)).access_token;
      const made = await refund(payment.id, { refund_amount: 100, reason: "own", staff_code: leaderCode }, own);
      expect(made.status).toBe(201);
      expect(await audited(made.body.id)).toHaveLength(1);
    });

    // Issue 38: a refund refused for the payment's state or amount left a `payment.refund_approved` record behind.
    it("leaves no approval on record when the payment cannot give the amount back", async () => {
      const payment = await cash((await billedOrder()).id, 2684);
      const approvals = () =>
        platform.portal.prisma.auditLog.count({
          where: { event: "payment.refund_approved", target_id: payment.id },
        });
      const approved = { reason: "approved", staff_code: leaderCode, staff_pin: leaderPin };
      expect(await refund(payment.id, { ...approved, refund_amount: 2685 })).toMatchObject({
        status: 400,
        body: { details: { field: "refund_amount", constraint: "refundable_amount" } },
      });
      expect(await approvals()).toBe(0);
      expect((await refund(payment.id, { ...approved, refund_amount: 2684 })).status).toBe(201);
      expect(await approvals()).toBe(1);
      expect(await refund(payment.id, { ...approved, refund_amount: 1 })).toMatchObject({
        status: 409,
        body: { code: "invalid_state" },
      });
      expect(await approvals()).toBe(1);
    });

    // Issue 32: an L5 token named the store manager or another leader as staff_code and the refund was recorded in
    // their name. Without that person's PIN the caller can only approve itself.
    it("refuses an L5 naming another leader or the manager without their PIN, over REST and GraphQL", async () => {
      const payment = await cash((await billedOrder()).id, 2684);
      const caller = await seed(platform).user("STAFF_LEADER", store);
      const managerUser = await seed(platform).user("STORE_MANAGER", store);
      const token = (await logIn(platform.baseUrl, caller)).access_token;
      const refusedShape = {
        status: 400,
        body: { code: "invalid_request", details: { field: "staff_pin", constraint: "required" } },
      };
      const mutation = `mutation ($id: ID!, $input: RefundPosPaymentInput!) {
        refundPosPayment(payment_id: $id, input: $input) { refund { id staff_code } }
      }`;
      for (const named of [leaderCode, managerUser.login_id]) {
        const body = { refund_amount: 100, reason: "in another's name", staff_code: named };
        expect(await refund(payment.id, body, token)).toMatchObject(refusedShape);
        const graphql = await postGraphQL(platform.baseUrl, mutation, { id: payment.id, input: body }, token);
        expect(graphql.body.errors?.[0]?.extensions).toMatchObject({
          code: "INVALID_REQUEST",
          details: { field: "staff_pin", constraint: "required" },
        });
      }
      expect(await refundsOf(payment.id)).toEqual([]);
      expect(await billOf(payment.bill_id)).toMatchObject({ status: "paid", refunded_amount: 0 });
      // With the named leader's PIN the refund is theirs; the caller's own code needs none.
      const withPin = { refund_amount: 100, reason: "approved", staff_code: leaderCode, staff_pin: leaderPin };
      expect(await refund(payment.id, withPin, token)).toMatchObject({ status: 201, body: { staff_code: leaderCode } });
      const graphql = await postGraphQL(
        platform.baseUrl,
        mutation,
        { id: payment.id, input: { refund_amount: 100, reason: "own", staff_code: caller.login_id } },
        token,
      );
      expect(graphql.body.data?.refundPosPayment.refund.staff_code).toBe(caller.login_id);
      expect((await refundsOf(payment.id)).map((row) => row.staff_code).sort()).toEqual(
        [leaderCode, caller.login_id].sort(),
      );
    });

    it("refunds with the approver's right PIN and audit-logs the approver", async () => {
      const payment = await cash((await billedOrder()).id, 2684);
      const body = { refund_amount: 500, reason: "approved", staff_code: leaderCode, staff_pin: leaderPin };
      const made = await refund(payment.id, body, staff);
      expect(made).toMatchObject({ status: 201, body: { amount: 500, status: "succeeded", staff_code: leaderCode } });
      const [record] = await audited(made.body.id);
      expect(record).toMatchObject({
        success: true,
        metadata: { payment_id: payment.id, amount: 500, approver_login_id: leaderCode, secret_checked: true },
      });
      expect((record!.metadata as { caller: string }).caller).toMatch(/^user:/);
    });

    it("answers who did what to a payment through REST, GraphQL and the export, scoped by tier", async () => {
      const payment = await cash((await billedOrder()).id, 2684);
      const body = { refund_amount: 300, reason: "trail", staff_code: leaderCode, staff_pin: leaderPin };
      const made = await refund(payment.id, body, staff);
      expect(made.status).toBe(201);
      const trail = (token: string) => call("GET", `/api/v1/audit-logs?target=${payment.id}`, token);
      // POS records travel as outbox events to the portal's consumer: they arrive shortly after the answer.
      await expect
        .poll(async () => (await trail(manager)).body.map((record: { event: string }) => record.event))
        .toEqual(["payment.refunded", "payment.refund_approved", "payment.completed", "payment.created"]);
      const records = (await trail(manager)).body as Record<string, any>[];
      const byEvent = Object.fromEntries(records.map((record) => [record.event, record]));
      const staffId = JSON.parse(Buffer.from(staff.split(".")[1]!, "base64url").toString()).sub;
      expect(byEvent["payment.created"]).toMatchObject({
        actor_type: "device",
        actor_id: device.id,
        target_type: "pos_payment",
        store_id: store.id,
        merchant_id: store.merchant_id,
        psp_id: store.psp_id,
        metadata: { amount: 2684, method_type: "CASH" },
      });
      expect(byEvent["payment.refunded"]).toMatchObject({
        actor_type: "user",
        actor_id: staffId,
        metadata: { refund_id: made.body.id, refund_amount: 300, approver_login_id: leaderCode },
      });
      expect(byEvent["payment.refund_approved"]).toMatchObject({
        user_id: leader.user_id,
        metadata: { refund_id: made.body.id, approver_login_id: leaderCode, secret_checked: true },
      });
      expect(records.every((record) => /^[0-9a-f]{64}$/.test(record.hash))).toBe(true);

      const graphql = await call("POST", "/graphql", manager, {
        query: "query ($target: String) { auditLog(filter: { target: $target }) { total_count nodes { event } } }",
        variables: { target: payment.id },
      });
      expect(graphql.body.data.auditLog.total_count).toBe(4);
      const other = await trail(outsider);
      expect(other).toMatchObject({ status: 200, body: [] });
      expect(other.headers.get("x-total-count")).toBe("0");
      expect((await trail(staff)).status).toBe(403);
      expect((await trail(terminal)).status).toBe(403);

      const exported = async (format: string) => {
        const response = await fetch(
          `${platform.baseUrl}/api/v1/audit-logs/export?format=${format}&target=${payment.id}`,
          {
            headers: { authorization: `Bearer ${manager}` },
          },
        );
        return { type: response.headers.get("content-type"), lines: (await response.text()).trim().split("\n") };
      };
      const csv = await exported("csv");
      expect(csv.type).toMatch(/^text\/csv/);
      expect(csv.lines[0]).toMatch(/^id,seq,event,timestamp,user_id,actor_type,actor_id,/);
      expect(csv.lines.slice(1).map((line) => line.split(",")[2])).toEqual([
        "payment.created",
        "payment.completed",
        "payment.refund_approved",
        "payment.refunded",
      ]);
      const ndjson = await exported("ndjson");
      expect(ndjson.type).toBe("application/x-ndjson");
      expect(ndjson.lines.map((line) => JSON.parse(line).event)).toEqual(
        csv.lines.slice(1).map((l) => l.split(",")[2]),
      );
      expect((await call("GET", "/api/v1/audit-logs/export?format=xml", manager)).body).toMatchObject({
        code: "invalid_request",
        details: { field: "format", constraint: "enum" },
      });
    });

    // Last in the file: it locks the staff leader's PIN.
    it("refuses a wrong PIN and counts it: five lock the approver, whose PIN login is then refused too", async () => {
      const payment = await cash((await billedOrder()).id, 2684);
      const wrong = leaderPin === "000000" ? "111111" : "000000";
      for (let attempt = 1; attempt <= 5; attempt++) {
        const refused = await refund(payment.id, {
          refund_amount: 100,
          reason: "guess",
          staff_code: leaderCode,
          staff_pin: wrong,
        });
        expect(refused).toMatchObject({ status: 403, body: { code: "forbidden", details: { field: "staff_pin" } } });
      }
      const locked = await refund(payment.id, { refund_amount: 100, reason: "right", staff_code: leaderCode });
      expect(locked).toMatchObject({ status: 423, body: { code: "locked" } });
      expect(await refundsOf(payment.id)).toEqual([]);
      expect((await billOf(payment.bill_id)).paid_amount).toBe(2684);
      const login = await call("POST", "/api/v1/auth/user/pin-login", undefined, {
        login_id: leaderCode,
        pin: leaderPin,
      });
      expect(login).toMatchObject({ status: 423, body: { code: "locked" } });
    });
  });
});
