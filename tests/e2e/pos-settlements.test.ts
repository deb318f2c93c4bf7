import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedAcquirerControl } from "../../apps/sandbox-acquirer/src/embedded";
import { sandboxMailbox } from "../../apps/sandbox-messages/src/embedded";
import { deviceToken, humanToken } from "../support/device";
import { clusterWiring } from "../support/environment";
import { call as callGateway } from "../support/gateway";
import { loggedDuring } from "../support/log";
import { movableClock } from "../support/payments";
import { postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

/** Where the store's mail goes: the card exchange's failures. */
const storeContact = "store@seeded.pos-cloud.localhost";

/** The business date of a moment in Asia/Tokyo, the stores' business clock. */
const businessDate = (at: Date) => new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo" }).format(at);

/** Milliseconds from `at` to the next midnight in Asia/Tokyo (UTC+9, no daylight saving). */
const untilTokyoMidnight = (at: Date) => 86_400_000 - ((at.getTime() + 9 * 3_600_000) % 86_400_000);

// A store's day through REST as a terminal and its manager do it: sales by cash and card, a refund, the settlement,
// its close, a late payment; then the day's card exchange with the sandbox acquirer over FTP, and its failure path.
describe("POS settlements and the card settlement exchange", () => {
  const clock = movableClock();
  let platform: TestPlatform;
  let store: SeededStore;
  let terminal: string;
  let manager: string;
  let staff: string;
  let operator: string;
  let managerCode: string;
  /** A terminal's settlement needs the manager's secret besides the login id (issue 38): a manager's is its password. */
  let managerPin: string;
  let leaderCode: string;
  /** A terminal\'s refund needs the approving leader\'s PIN besides the login id (issue 21). */
  let leaderPin: string;
  let staffCode: string;
  let settlementId: string;
  let table = 0;
  let day: string;
  const today = () => day;
  const mine: { cash: number; card: string[]; declinedCard?: string; refund?: string; lateCard?: string } = {
    cash: 0,
    card: [],
  };

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

  /** A billed order of 2 x 980 + 480 with 10% tax: 2684. */
  async function bill() {
    const order = await call("POST", "/orders", terminal, {
      order_type: "dine_in",
      table_number: `S${++table}`,
      items: [
        { sequence: 1, item_name: "Ramen", quantity: 2, unit_price: 980 },
        { sequence: 2, item_name: "Gyoza", quantity: 1, unit_price: 480 },
      ],
    });
    const billed = await call("POST", "/bills", terminal, {
      order_id: order.body.id,
      staff_code: staffCode,
      tax_percentage: 10,
    });
    expect(billed.body.total_amount).toBe(2684);
    return billed.body.id as string;
  }
  async function cash(billId: string, amount: number) {
    const paid = await call("POST", "/payments", terminal, {
      bill_id: billId,
      amount,
      payment_method: { type: "CASH" },
      cash_received: amount + 1000,
    });
    expect(paid.body).toMatchObject({ status: "completed", change_amount: 1000 });
    return paid.body.id as string;
  }
  async function card(billId: string, amount: number) {
    const started = await call("POST", "/payments", terminal, {
      bill_id: billId,
      amount,
      payment_method: { type: "CREDIT_CARD" },
    });
    const approved = await call("PATCH", `/payments/${started.body.id}`, terminal, {
      approval_code: `A${amount}`,
      card_document_number: `SLIP-${amount}`,
      card_last_4: "4242",
      card_brand: "VISA",
    });
    expect(approved.body).toMatchObject({ status: "completed" });
    return approved.body.id as string;
  }
  const method = (settlement: { totals: { payment_method: string }[] }, type: string) =>
    settlement.totals.find((total) => total.payment_method === type) as unknown as Record<
      "gross_amount" | "refund_amount" | "net_amount" | "payment_count" | "refund_count",
      number
    >;
  const settlementOf = async (id: string) => (await call("GET", `/settlements/${id}`, manager)).body;

  beforeAll(async () => {
    // The day's sales must fall on one business day: a run that would cross midnight in Tokyo starts the platform's
    // clock after it (at most 45 s ahead, inside the signatures' 5 minutes). A cluster's processes keep their own.
    const left = untilTokyoMidnight(clock());
    if (left < 45_000 && !clusterWiring) clock.advance(left + 500);
    day = businessDate(clock());
    platform = await startTestPlatform({ clock, demo: false });
    store = await seed(platform).store({ sells: true, contact_email: storeContact });
    terminal = await deviceToken(platform.baseUrl, await seed(platform).device(store), clock());
    const at = { psp_id: store.psp_id, merchant_id: store.merchant_id, store_id: store.id };
    manager = await humanToken(platform.portal, { role: "STORE_MANAGER", ...at });
    staff = await humanToken(platform.portal, { role: "STAFF", ...at });
    operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
    const storeManager = await seed(platform).user("STORE_MANAGER", store);
    managerCode = storeManager.login_id;
    managerPin = storeManager.password!;
    const leader = await seed(platform).user("STAFF_LEADER", store);
    leaderCode = leader.login_id;
    leaderPin = leader.pin!;
    staffCode = (await seed(platform).user("STAFF", store)).login_id;
    platform.pos.cardExchange.configure({ retryDelaysMs: [10, 20, 40] });
  });
  afterAll(() => platform?.close());

  const STORE_DAY = `query ($store_id: Int, $date: String) { storeDay(store_id: $store_id, date: $date) {
    date starts_at ends_at settlement { id status } gross_amount refund_amount net_amount payment_count refund_count csv
    totals { payment_method gross_amount tip_amount refund_amount net_amount payment_count refund_count } } }`;
  /** The CSV's lines after its header, each split into its fields. */
  const csvRows = (csv: string) =>
    csv
      .trimEnd()
      .split("\r\n")
      .slice(1)
      .map((line) => line.split(","));
  const storeDay = async (token = manager, variables: Record<string, unknown> = { store_id: store.id }) =>
    postGraphQL(platform.baseUrl, STORE_DAY, variables, token);

  it("reads the store's day before it has a settlement, and finds its payments by method, amount and time", async () => {
    for (const [variables, field] of [
      [{ store_id: store.id, date: "2026-02-30" }, "date"],
      [{ store_id: store.id, date: "2999-01-01" }, "date"],
    ] as const) {
      const refused = await storeDay(manager, variables);
      expect(refused.body.errors?.[0]?.extensions, JSON.stringify(variables)).toMatchObject({
        code: "INVALID_REQUEST",
        details: { field },
      });
    }
    expect((await storeDay(staff)).body.errors?.[0]?.extensions).toMatchObject({ code: "FORBIDDEN" });

    const before = (await storeDay()).body.data.storeDay;
    expect(before).toMatchObject({ date: today(), settlement: null });
    const paid = await cash(await bill(), 2684);
    const after = (await storeDay()).body.data.storeDay;
    expect(method(after, "CASH")).toMatchObject({
      gross_amount: method(before, "CASH").gross_amount + 2684,
      payment_count: method(before, "CASH").payment_count + 1,
    });
    expect(after.net_amount).toBe(after.gross_amount - after.refund_amount);
    expect(after.csv.split("\r\n")[0]).toBe("Kind,ID,Date,Time,Payment Method,Amount,Tip,Carried Over");
    const rows = csvRows(after.csv);
    expect(rows).toContainEqual([
      "payment",
      paid,
      today(),
      expect.stringMatching(/^\d\d:\d\d:\d\d$/),
      "CASH",
      "2684",
      "0",
      "no",
    ]);
    expect(rows).toHaveLength(after.payment_count + after.refund_count);
    // The terminal reads the same day of its own store.
    expect((await storeDay(terminal, {})).body.data.storeDay).toEqual(after);

    const PAYMENTS = `query ($store_id: Int, $method: PosPaymentMethodType, $min: Int, $max: Int, $from: DateTime,
      $to: DateTime) { posPayments(store_id: $store_id, method: $method, min_amount: $min, max_amount: $max,
      from: $from, to: $to, limit: 100) { total_count nodes { id total_amount payment_method { type } } } }`;
    const search = (variables: Record<string, unknown>) =>
      postGraphQL(
        platform.baseUrl,
        PAYMENTS,
        { store_id: store.id, from: after.starts_at, to: after.ends_at, ...variables },
        manager,
      );
    const found = (await search({ method: "CASH", min: 2684, max: 2684 })).body.data.posPayments;
    expect(found.nodes).toContainEqual({ id: paid, total_amount: 2684, payment_method: { type: "CASH" } });
    expect(found.nodes.every((p: { total_amount: number }) => p.total_amount === 2684)).toBe(true);
    for (const other of [{ method: "QR" }, { min: 2685 }, { max: 2683 }, { from: after.ends_at, to: null }])
      expect((await search(other)).body.data.posPayments.nodes, JSON.stringify(other)).not.toContainEqual(
        expect.objectContaining({ id: paid }),
      );
    expect((await search({ min: 10, max: 9 })).body.errors?.[0]?.extensions).toMatchObject({
      code: "INVALID_REQUEST",
      details: { field: "max_amount" },
    });
  });

  it("totals a day of cash and card sales and a refund per method, closes it, and keeps a late payment out", async () => {
    for (const [body, field] of [
      [{ staff_code: managerCode, staff_pin: managerPin }, "date"],
      [{ date: "2026-02-30", staff_code: managerCode, staff_pin: managerPin }, "date"],
      [{ date: 20261124, staff_code: managerCode, staff_pin: managerPin }, "date"],
      [{ date: today(), staff_code: managerCode, staff_pin: managerPin, auto_close: "yes" }, "auto_close"],
      [{ date: today() }, "staff_code"],
      // A login id is printed on receipts: alone, it is no manager's approval.
      [{ date: today(), staff_code: managerCode }, "staff_pin"],
    ] as const) {
      const refused = await call("POST", "/settlements", terminal, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body).toMatchObject({
        code: "invalid_request",
        details: { field: expect.stringContaining(field) },
      });
    }
    expect((await call("GET", "/settlements", terminal)).body).not.toContainEqual(
      expect.objectContaining({ date: today() }),
    );
    const wrongPin = await call("POST", "/settlements", terminal, {
      date: today(),
      staff_code: managerCode,
      staff_pin: "not the password",
    });
    expect(wrongPin).toMatchObject({ status: 403, body: { details: { field: "staff_pin" } } });
    const opened = await call("POST", "/settlements", terminal, {
      date: today(),
      staff_code: managerCode,
      staff_pin: managerPin,
    });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({
      store_id: store.id,
      date: today(),
      status: "open",
      staff_code: managerCode,
    });
    settlementId = opened.body.id;
    const before = { cash: method(opened.body, "CASH"), card: method(opened.body, "CREDIT_CARD") };
    expect((await storeDay()).body.data.storeDay).toMatchObject({
      settlement: { id: settlementId, status: "open" },
      totals: opened.body.totals,
    });

    const split = await bill();
    mine.cash = 1671;
    await cash(split, 1671);
    // 1013 ends in 13: the sandbox acquirer declines it, so the exchange below has a difference to find.
    mine.declinedCard = await card(split, 1013);
    const whole = await card(await bill(), 2684);
    mine.card.push(whole);
    const refund = await call("POST", `/payments/${whole}/refund`, terminal, {
      refund_amount: 684,
      reason: "cold ramen",
      staff_code: leaderCode,
      staff_pin: leaderPin,
    });
    expect(refund.status).toBe(201);
    mine.refund = refund.body.id;

    const open = await settlementOf(settlementId);
    expect(method(open, "CASH")).toMatchObject({
      gross_amount: before.cash.gross_amount + 1671,
      payment_count: before.cash.payment_count + 1,
    });
    expect(method(open, "CREDIT_CARD")).toMatchObject({
      gross_amount: before.card.gross_amount + 1013 + 2684,
      refund_amount: before.card.refund_amount + 684,
      net_amount: before.card.net_amount + 1013 + 2684 - 684,
      payment_count: before.card.payment_count + 2,
      refund_count: before.card.refund_count + 1,
    });
    expect(open.net_amount).toBe(open.gross_amount - open.refund_amount);

    const again = await call("POST", "/api/v1/settlements", manager, { store_id: store.id, date: today() });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "conflict", details: { settlement_id: settlementId } });
    const byLeader = { date: today(), staff_code: leaderCode, staff_pin: leaderPin };
    expect((await call("POST", "/settlements", terminal, byLeader)).status).toBe(403);
    expect((await call("GET", `/settlements/${settlementId}`, staff)).status).toBe(403);

    const closed = await call("POST", `/api/v1/settlements/${settlementId}/close`, manager, {});
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ status: "closed", totals: open.totals, net_amount: open.net_amount });
    expect((await call("POST", `/settlements/${settlementId}/close`, manager, {})).status).toBe(409);

    // A card payment after the close: the closed day's totals stay as they were.
    mine.lateCard = await card(await bill(), 2684);
    const after = await settlementOf(settlementId);
    expect(after).toMatchObject({ status: "closed", totals: open.totals, net_amount: open.net_amount });
    const closedDay = (await storeDay()).body.data.storeDay;
    expect(closedDay).toMatchObject({
      settlement: { id: settlementId, status: "closed" },
      totals: open.totals,
      net_amount: open.net_amount,
    });
    const closedRows = csvRows(closedDay.csv);
    expect(closedRows).toContainEqual([
      "refund",
      mine.refund,
      today(),
      expect.any(String),
      "CREDIT_CARD",
      "684",
      "0",
      "no",
    ]);
    expect(closedRows.map((row) => row[1])).not.toContain(mine.lateCard);
    const net = closedRows.reduce(
      (sum, [kind, , , , , amount]) => sum + (kind === "payment" ? 1 : -1) * Number(amount),
      0,
    );
    expect(net).toBe(open.net_amount);

    const listed = await call("GET", `/settlements?start_date=${today()}&end_date=${today()}&status=closed`, manager);
    expect(listed.status).toBe(200);
    expect(listed.body.map((s: { id: string }) => s.id)).toEqual([settlementId]);
    expect((await call("GET", "/settlements?start_date=2026-13-01", manager)).status).toBe(400);
  });

  it("uploads the closed day's card transactions to the acquirer, records its settlement file and flags the difference", async () => {
    const [outcome] = await platform.pos.cardExchange.run(today(), { storeId: store.id });
    expect(outcome).toMatchObject({ settlement_id: settlementId, status: "mismatch", attempts: 1 });

    const day = today().replaceAll("-", "");
    const uploaded = readFileSync(
      join(
        platform.dataDir,
        "sandbox-acquirer",
        "files",
        String(store.merchant_id),
        "upload",
        `card_transactions_${store.id}_${day}.csv`,
      ),
      "utf8",
    );
    const lines = uploaded.trimEnd().split("\r\n");
    expect(lines[0]).toBe("Transaction ID,Date,Time,Amount,Approval Code,Status");
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^${mine.card[0]},${today()},\\d\\d:\\d\\d:\\d\\d,2684,A2684,captured$`)),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^${mine.declinedCard},${today()},[\\d:]{8},1013,A1013,captured$`)),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^${mine.refund},${today()},[\\d:]{8},684,A2684,refunded$`)),
    );
    expect(uploaded).not.toContain(mine.lateCard);

    const settlement = await settlementOf(settlementId);
    const card = method(settlement, "CREDIT_CARD");
    expect(settlement.card_exchange).toMatchObject({
      status: "mismatch",
      attempts: 1,
      upload_count: card.payment_count + card.refund_count,
      upload_amount: card.net_amount,
      report: {
        file: `${store.merchant_id}/settlement/settlement_${store.id}_${day}.csv`,
        merchant_id: String(store.merchant_id),
        date: today(),
        transaction_count: card.payment_count + card.refund_count - 1,
        gross_amount: card.net_amount - 1013,
      },
      differences: [
        {
          field: "transaction_count",
          expected: card.payment_count + card.refund_count,
          actual: card.payment_count + card.refund_count - 1,
        },
        { field: "gross_amount", expected: card.net_amount, actual: card.net_amount - 1013 },
      ],
    });
    const report = settlement.card_exchange.report;
    expect(report.fees).toBe(Math.floor(((report.gross_amount + 684) * 324) / 10_000));
    expect(report.net_amount).toBe(report.gross_amount - report.fees);
    expect(report.content.split("\r\n")[0]).toBe("Merchant ID,Date,Transaction Count,Gross Amount,Fees,Net Amount");

    const listed = await postGraphQL(
      platform.baseUrl,
      `{ posNotifications(kind: card_settlement_mismatch) { total_count nodes { kind store_id settlement_id details } } }`,
      {},
      operator,
    );
    expect(listed.body.data.posNotifications.nodes).toContainEqual(
      expect.objectContaining({
        kind: "card_settlement_mismatch",
        settlement_id: settlementId,
        store_id: store.id,
      }),
    );
    const refused = await postGraphQL(platform.baseUrl, "{ posNotifications { total_count } }", {}, manager);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");

    // The console's open alerts count the store's mismatched days for those who see notifications; absent for others.
    const POS_ALERTS = "query ($store_id: Int) { posAlerts(store_id: $store_id) { card_settlement_differences } }";
    const alerts = async (token: string) =>
      (await postGraphQL(platform.baseUrl, POS_ALERTS, { store_id: store.id }, token)).body.data.posAlerts;
    expect(await alerts(operator)).toEqual({
      card_settlement_differences: listed.body.data.posNotifications.nodes.filter(
        (node: { store_id: number }) => node.store_id === store.id,
      ).length,
    });
    expect((await alerts(operator)).card_settlement_differences).toBeGreaterThan(0);
    expect(await alerts(manager)).toEqual({ card_settlement_differences: null });
  });

  it("resolves the mismatched day's card differences over REST: the merchant's admin, once, with a note", async () => {
    const merchantAdmin = await humanToken(platform.portal, {
      role: "MERCHANT_ADMIN",
      psp_id: store.psp_id,
      merchant_id: store.merchant_id,
    });
    const resolve = (token: string, body: unknown, id = settlementId) =>
      call("POST", `/api/v1/settlements/${id}/card-differences/resolve`, token, body);
    const POS_ALERTS = "query ($store_id: Int) { posAlerts(store_id: $store_id) { card_settlement_differences } }";
    const open = async () =>
      (await postGraphQL(platform.baseUrl, POS_ALERTS, { store_id: store.id }, merchantAdmin)).body.data.posAlerts
        .card_settlement_differences;
    expect(await open()).toBe(1);
    const note = "the acquirer declined the 1013 payment; the customer paid again in cash";

    expect(await resolve(manager, { note })).toMatchObject({ status: 403, body: { code: "forbidden" } });
    expect(await resolve(merchantAdmin, { note: "" })).toMatchObject({
      status: 400,
      body: { code: "invalid_request", details: { field: "note" } },
    });
    expect(await resolve(merchantAdmin, { note }, "00000000-0000-4000-8000-000000000000")).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
    expect((await settlementOf(settlementId)).card_exchange).toMatchObject({
      resolved_at: null,
      resolution_note: null,
    });

    const resolved = await resolve(merchantAdmin, { note });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      id: settlementId,
      card_exchange: {
        status: "mismatch",
        differences: [{ field: "transaction_count" }, { field: "gross_amount" }],
        resolved_at: expect.any(String),
        resolved_by: expect.stringMatching(/^user:/),
        resolution_note: note,
      },
    });
    expect(await open()).toBe(0);
    expect(await resolve(operator, { note: "again" })).toMatchObject({
      status: 409,
      body: {
        code: "invalid_state",
        details: {
          resolved_at: resolved.body.card_exchange.resolved_at,
          resolved_by: resolved.body.card_exchange.resolved_by,
        },
      },
    });
    expect((await settlementOf(settlementId)).card_exchange).toEqual(resolved.body.card_exchange);
  });

  it("retries refused logins, then alerts, leaves a notification an operator lists and e-mails the store", async () => {
    const control = embeddedAcquirerControl(platform.dataDir);
    /** The retry job's pass `ms` later. */
    const retriedAfter = (ms: number) => {
      clock.advance(ms);
      return platform.pos.cardExchange.retryDue();
    };
    control.refuseNextLogins(1);
    expect(await platform.pos.cardExchange.run(today(), { storeId: store.id, again: true })).toMatchObject([
      { status: "retrying", attempts: 1 },
    ]);
    expect(await retriedAfter(10)).toMatchObject([{ settlement_id: settlementId, status: "mismatch", attempts: 2 }]);
    // Exchanged again, the day's file is compared anew: the resolution of the last comparison no longer stands.
    expect((await settlementOf(settlementId)).card_exchange).toMatchObject({ status: "mismatch", resolved_at: null });

    control.refuseNextLogins(4);
    let outcomes: unknown;
    const log = await loggedDuring(async () => {
      await platform.pos.cardExchange.run(today(), { storeId: store.id, again: true });
      for (const ms of [10, 20, 40]) outcomes = await retriedAfter(ms);
    });
    expect(outcomes).toMatchObject([{ status: "failed", attempts: 4 }]);
    const alerts = log
      .split("\n")
      .filter((line) => line.includes('"alert"'))
      .map((line) => JSON.parse(line));
    expect(alerts).toContainEqual(
      expect.objectContaining({
        level: "error",
        alert: "card_exchange_failed",
        settlement_id: settlementId,
        attempts: 4,
      }),
    );
    expect((await settlementOf(settlementId)).card_exchange).toMatchObject({
      status: "failed",
      attempts: 4,
      last_error: expect.stringContaining("530"),
    });
    const listed = await postGraphQL(
      platform.baseUrl,
      `{ posNotifications(kind: card_exchange_failed, store_id: ${store.id}) { nodes { kind settlement_id business_date message details } } }`,
      {},
      operator,
    );
    expect(listed.body.data.posNotifications.nodes[0]).toMatchObject({
      kind: "card_exchange_failed",
      settlement_id: settlementId,
      business_date: today(),
      details: { attempts: 4 },
    });
    // The spec's e-mail, as the sandbox mail server received it over SMTP, to the store's contact.
    const mailed = () =>
      sandboxMailbox(platform.dataDir)
        .list()
        .find((mail) => mail.to.includes(storeContact) && mail.subject.includes(today()));
    await expect.poll(mailed, { timeout: 15_000 }).toMatchObject({
      subject: `Card settlement exchange failed: store ${store.id}, ${today()}`,
      text: expect.stringContaining("failed 4 times"),
    });
  });

  it("reconciles the day's QR sales with the sandbox provider: none differ, then its two differences, each once", async () => {
    const sandboxUrl = seed(platform).providers().provider.base_url;
    const intentOf = (id: string) => platform.payments.prisma.paymentIntent.findUniqueOrThrow({ where: { id } });
    /** A QR payment of a new bill, confirmed at the sandbox provider: its intent and the sandbox's transaction. */
    async function qr() {
      const started = await call("POST", "/payments", terminal, {
        bill_id: await bill(),
        amount: 2684,
        payment_method: { type: "QR" },
      });
      const confirmed = await callGateway(
        platform.baseUrl,
        "POST",
        `/v1/payment_intents/${started.body.payment_intent_id}/confirm`,
        { payment_token: started.body.payment_token, payment_method_type: "qr_mpm", provider: "sandbox" },
      );
      expect(confirmed.status).toBe(200);
      const intent = await intentOf(started.body.payment_intent_id);
      return { intent: intent.id, transaction: intent.provider_transaction_id! };
    }
    const atSandbox = (transaction: string, action: "pay" | "override", body: Record<string, unknown> = {}) =>
      fetch(`${sandboxUrl}/sandbox/transactions/${transaction}/${action}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const reconcile = async () =>
      (await platform.payments.reconciliation.run("sandbox", today())).filter((o) => o.store_id === store.id);
    const QR_DIFFERENCES = `query ($store_id: Int, $date: String) { storeDay(store_id: $store_id, date: $date) {
      store { qr_differences(date: $date) { payment_intent_id provider_transaction_id field expected actual } } } }`;
    const differences = async () =>
      (await postGraphQL(platform.baseUrl, QR_DIFFERENCES, { store_id: store.id, date: today() }, manager)).body.data
        .storeDay.store.qr_differences;

    // One QR the customer never paid, which the gateway expired (its expiry brought forward); one paid.
    const unpaid = await qr();
    await platform.payments.prisma.paymentIntent.update({
      where: { id: unpaid.intent },
      data: { expires_at: clock() },
    });
    await platform.payments.paymentIntents.expireOverdue();
    expect(await intentOf(unpaid.intent)).toMatchObject({ status: "cancelled", failure_code: "expired" });
    const paid = await qr();
    expect((await atSandbox(paid.transaction, "pay")).status).toBe(200);
    await expect.poll(async () => (await intentOf(paid.intent)).status, { timeout: 15_000 }).toBe("succeeded");
    expect(await reconcile()).toEqual([expect.objectContaining({ status: "matched", differences: [], recorded: 0 })]);
    expect(await differences()).toEqual([]);

    // The sandbox now says the expired one was paid, and knows a refund of the paid one the gateway never made.
    expect((await atSandbox(unpaid.transaction, "override", { status: "paid" })).status).toBe(200);
    expect((await atSandbox(paid.transaction, "override", { refund_amount: 684 })).status).toBe(200);
    const runs: Awaited<ReturnType<typeof reconcile>>[] = [];
    const log = await loggedDuring(async () => {
      runs.push(await reconcile());
      runs.push(await reconcile());
    });
    expect(runs.map((outcomes) => outcomes.map((o) => [o.status, o.differences.length, o.recorded]))).toEqual([
      [["mismatch", 2, 2]],
      [["mismatch", 2, 0]],
    ]);
    expect(await differences()).toEqual([
      {
        payment_intent_id: unpaid.intent,
        provider_transaction_id: unpaid.transaction,
        field: "status",
        expected: "cancelled",
        actual: "succeeded",
      },
      {
        payment_intent_id: paid.intent,
        provider_transaction_id: paid.transaction,
        field: "refunded_amount",
        expected: "0",
        actual: "684",
      },
    ]);
    // The console's open alerts count them over each person's scope, from merchant admins up; null below.
    const QR_ALERTS = "query ($store_id: Int) { paymentsAlerts(store_id: $store_id) { qr_differences } }";
    const qrAlerts = async (token: string, store_id?: number) =>
      (await postGraphQL(platform.baseUrl, QR_ALERTS, { store_id }, token)).body.data.paymentsAlerts.qr_differences;
    const other = await seed(platform).store();
    const [merchantAdmin, pspAdmin, otherAdmin] = await Promise.all([
      humanToken(platform.portal, { role: "MERCHANT_ADMIN", psp_id: store.psp_id, merchant_id: store.merchant_id }),
      humanToken(platform.portal, { role: "PSP_ADMIN", psp_id: store.psp_id }),
      humanToken(platform.portal, { role: "MERCHANT_ADMIN", psp_id: other.psp_id, merchant_id: other.merchant_id }),
    ]);
    expect(await qrAlerts(merchantAdmin)).toBe(2);
    expect(await qrAlerts(pspAdmin)).toBe(2);
    expect(await qrAlerts(operator, store.id)).toBe(2);
    expect(await qrAlerts(operator)).toBeGreaterThanOrEqual(2);
    expect(await qrAlerts(otherAdmin)).toBe(0);
    expect(await qrAlerts(otherAdmin, store.id)).toBe(0);
    expect(await qrAlerts(manager)).toBeNull();
    const badStore = await postGraphQL(platform.baseUrl, QR_ALERTS, { store_id: 0 }, operator);
    expect(badStore.body.errors?.[0]?.extensions).toMatchObject({ code: "INVALID_REQUEST" });
    const alerts = log
      .split("\n")
      .filter((line) => line.includes('"provider_reconciliation_mismatch"'))
      .map((line) => JSON.parse(line));
    expect(alerts.map((alert) => alert.field).sort()).toEqual(["refunded_amount", "status"]);
    // The runs were this process's: in a cluster the edge's /metrics is another process's registry.
    if (!clusterWiring) {
      const exposed = await (await fetch(`${platform.adminUrl}/metrics`)).text();
      expect(exposed).toMatch(
        /^pgw_provider_reconciliation_differences_total\{provider="sandbox",field="status"\} 1$/m,
      );
    }
    // A terminal reads its store's day, not what the reconciliation found.
    const asTerminal = await postGraphQL(
      platform.baseUrl,
      QR_DIFFERENCES,
      { store_id: store.id, date: today() },
      terminal,
    );
    expect(asTerminal.body.errors?.[0]).toMatchObject({
      path: ["storeDay", "store", "qr_differences"],
      extensions: { code: "FORBIDDEN" },
    });
    // Recorded and alerted only: no money moved either way.
    expect(await intentOf(unpaid.intent)).toMatchObject({ status: "cancelled" });
    expect(await platform.payments.prisma.refund.count({ where: { payment_intent_id: paid.intent } })).toBe(0);
  });
  it("resolves a QR difference over REST: merchant admins and above who reach it, once, with a note", async () => {
    const QR_DIFFERENCES = `query ($store_id: Int, $date: String) { storeDay(store_id: $store_id, date: $date) {
      store { qr_differences(date: $date) { id field resolved_at resolved_by resolution_note } } } }`;
    const differences = async () =>
      (await postGraphQL(platform.baseUrl, QR_DIFFERENCES, { store_id: store.id, date: today() }, manager)).body.data
        .storeDay.store.qr_differences;
    const QR_ALERTS = "query ($store_id: Int) { paymentsAlerts(store_id: $store_id) { qr_differences } }";
    const open = async (token: string) =>
      (await postGraphQL(platform.baseUrl, QR_ALERTS, { store_id: store.id }, token)).body.data.paymentsAlerts
        .qr_differences;
    const other = await seed(platform).store();
    const [merchantAdmin, otherAdmin] = await Promise.all([
      humanToken(platform.portal, { role: "MERCHANT_ADMIN", psp_id: store.psp_id, merchant_id: store.merchant_id }),
      humanToken(platform.portal, { role: "MERCHANT_ADMIN", psp_id: other.psp_id, merchant_id: other.merchant_id }),
    ]);
    const resolve = (token: string, id: string, body: unknown) =>
      call("POST", `/api/v1/qr-differences/${id}/resolve`, token, body);
    // The two differences the reconciliation above recorded, both open.
    const [status, refunded] = await differences();
    expect([status, refunded].map((difference) => difference.resolved_at)).toEqual([null, null]);
    expect(await open(merchantAdmin)).toBe(2);
    const note = "the customer's refund was made by hand at the provider's console";

    expect(await resolve(manager, refunded.id, { note })).toMatchObject({ status: 403, body: { code: "forbidden" } });
    expect(await resolve(otherAdmin, refunded.id, { note })).toMatchObject({
      status: 403,
      body: { code: "forbidden" },
    });
    expect(await resolve(merchantAdmin, refunded.id, { note: "x".repeat(501) })).toMatchObject({
      status: 400,
      body: { code: "invalid_request", details: { field: "note" } },
    });
    expect(await resolve(merchantAdmin, "pdf_unknown", { note })).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
    expect(await open(merchantAdmin)).toBe(2);

    const resolved = await resolve(merchantAdmin, refunded.id, { note });
    expect(resolved).toMatchObject({
      status: 200,
      body: {
        id: refunded.id,
        field: "refunded_amount",
        resolved_at: expect.any(String),
        resolved_by: expect.stringMatching(/^user:/),
        resolution_note: note,
      },
    });
    expect(await open(merchantAdmin)).toBe(1);
    expect(await resolve(operator, refunded.id, { note: "again" })).toMatchObject({
      status: 409,
      body: { code: "invalid_state", details: { resolved_by: resolved.body.resolved_by } },
    });
    const { id, field, resolved_at, resolved_by, resolution_note } = resolved.body;
    expect(await differences()).toEqual([status, { id, field, resolved_at, resolved_by, resolution_note }]);
  });
});
