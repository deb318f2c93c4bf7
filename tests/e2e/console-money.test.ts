import { randomUUID } from "node:crypto";
import type { JWK } from "jose";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DemoFile } from "../../apps/platform/src/demo";
import {
  documentationScreenshot,
  ensureConsoleBuilt,
  launchChromium,
  logInInConsole,
  seriousViolations,
} from "../support/browser";
import { deviceToken } from "../support/device";
import { call as callGateway, signed } from "../support/gateway";
import { demoUser, logIn, postGraphQL, readDemo, startTestPlatform, type TestPlatform } from "../support/platform";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

type Demo = DemoFile & { device: { client_id: string; private_jwk: JWK } };
type Tokens = { access_token: string; refresh_token: string; expires_in: number };

// The console's money pages in a real browser (Debian's chromium) against the embedded platform: a store's day
// live, a refund with approval, closing the day, a partner's dead letter redelivered. Every figure the page shows is
// compared with the API's answer to the same query. The platform's clock runs ahead 30 s at each TOTP login.
describe("operator console: money", () => {
  let platform: TestPlatform;
  let demo: Demo;
  let browser: Browser;
  let proxy: TcpProxy;
  let receiver: WebhookReceiver;
  let terminal = { token: "", issuedAt: 0 };
  let manager: Tokens;
  let managerPage: Page;
  let ahead = 0;
  const clock = () => new Date(Date.now() + ahead);
  const nextStep = () => {
    ahead += 30_000;
    return clock();
  };
  let table = 0;
  /**
   * The terminal's token, fetched again before its 90 s run out on the platform's clock (which jumps 30 s at each
   * login), as the terminal SDK fetches it.
   */
  const terminalToken = async () => {
    const now = clock();
    if (now.getTime() - terminal.issuedAt > 45_000)
      terminal = { token: await deviceToken(platform.baseUrl, demo.device, now), issuedAt: now.getTime() };
    return terminal.token;
  };
  /** The payment the staff member refunded, with the leader's approval. */
  let refunded = "";

  const rest = async (method: string, path: string, body?: unknown, token?: string) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token ?? (await terminalToken())}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as any;
  };
  /** A billed order of the demo store, 2684 with tax (by the terminal unless a token is given). */
  async function bill(token?: string) {
    const order = await rest(
      "POST",
      "/orders",
      {
        order_type: "dine_in",
        table_number: `C${++table}`,
        items: [
          { sequence: 1, item_name: "Ramen", quantity: 2, unit_price: 980 },
          { sequence: 2, item_name: "Gyoza", quantity: 1, unit_price: 480 },
        ],
      },
      token,
    );
    const billed = await rest(
      "POST",
      "/bills",
      { order_id: order.id, staff_code: demoUser(demo, "STAFF").login_id, tax_percentage: 10 },
      token,
    );
    return billed.id as string;
  }
  const cashSale = async () =>
    (await rest("POST", "/payments", {
      bill_id: await bill(),
      amount: 2684,
      payment_method: { type: "CASH" },
      cash_received: 3000,
    })) as { id: string; status: string };

  const STORE_DAY = `query ($store_id: Int) { storeDay(store_id: $store_id) { settlement { status }
    totals { payment_method payment_count gross_amount tip_amount refund_count refund_amount net_amount }
    payment_count gross_amount tip_amount refund_count refund_amount net_amount } }`;
  const apiDay = async () =>
    (await postGraphQL(platform.baseUrl, STORE_DAY, { store_id: demo.store.id }, manager.access_token)).body.data
      .storeDay;
  /** The totals table as the page shows it: each row's API integers (`data-value`) or counts, by method. */
  const shownTotals = (page: Page) =>
    page.getByRole("table", { name: "Totals per method" }).evaluate((table) =>
      [...table.querySelectorAll("tbody tr")].map((row) => {
        const cell = (field: string) => {
          const td = row.querySelector(`[data-field="${field}"]`)!;
          return Number(td.querySelector("[data-value]")?.getAttribute("data-value") ?? td.textContent);
        };
        return {
          payment_method: row.querySelector("td")!.textContent,
          payment_count: cell("payment_count"),
          gross_amount: cell("gross_amount"),
          tip_amount: cell("tip_amount"),
          refund_count: cell("refund_count"),
          refund_amount: cell("refund_amount"),
          net_amount: cell("net_amount"),
        };
      }),
    );
  /** The API's day in the table's order: each method, then all of them. */
  const expectedTotals = async () => {
    const { totals, settlement: _, ...all } = await apiDay();
    return [...totals, { payment_method: "All", ...all }];
  };
  /** Waits until the page's totals are the API's (they follow the store's events). */
  const totalsMatchApi = (page: Page) =>
    expect
      .poll(
        async () => {
          const [shown, api] = await Promise.all([shownTotals(page), expectedTotals()]);
          return JSON.stringify(shown) === JSON.stringify(api) ? "the same" : JSON.stringify({ shown, api });
        },
        { timeout: 15_000 },
      )
      .toBe("the same");

  /** A browser tab already signed in with `tokens`, as the login page leaves it. */
  async function signedInPage(tokens: Tokens, origin = platform.baseUrl) {
    const context = await browser.newContext();
    const stored = JSON.stringify({
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
      expires_at: Date.now() + tokens.expires_in * 1000,
    });
    await context.addInitScript({
      content: `if (!sessionStorage.getItem("pos-cloud-console-session"))
        sessionStorage.setItem("pos-cloud-console-session", ${JSON.stringify(stored)});`,
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${origin}/console/`);
    return page;
  }
  const screenshot = (page: Page, name: string) => documentationScreenshot(page, `console/${name}`, { fullPage: true });

  beforeAll(async () => {
    ensureConsoleBuilt();
    [platform, browser, receiver] = await Promise.all([
      startTestPlatform({
        clock,
        partnerWebhooks: { allowPrivateUrls: true, timeoutMs: 2_000, retryDelaysMs: [100, 100] },
      }),
      launchChromium(),
      startWebhookReceiver(),
    ]);
    demo = readDemo(platform.dataDir) as Demo;
    const { port } = new URL(platform.baseUrl);
    proxy = await startTcpProxy({ host: "127.0.0.1", port: Number(port) });
    manager = await logIn(platform.baseUrl, demoUser(demo, "STORE_MANAGER"), nextStep());
    // The store manager's tab: through the proxy, so a test can take the platform away from it.
    const context = await browser.newContext();
    managerPage = await context.newPage();
    managerPage.setDefaultTimeout(15_000);
    await logInInConsole(managerPage, proxy.url("http"), demoUser(demo, "STORE_MANAGER"), nextStep());
    await managerPage.getByRole("link", { name: "Store's day" }).click();
    await managerPage.getByRole("table", { name: "Totals per method" }).waitFor();
    await managerPage.getByTestId("live-status").getByText("Live").waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await receiver?.close();
    await platform?.close();
  });

  it("turns a QR payment paid at the sandbox provider succeeded on the store's day by itself", async () => {
    const qr = await rest("POST", "/payments", { bill_id: await bill(), amount: 2684, payment_method: { type: "QR" } });
    const confirmed = await callGateway(
      platform.baseUrl,
      "POST",
      `/v1/payment_intents/${qr.payment_intent_id}/confirm`,
      {
        payment_token: qr.payment_token,
        payment_method_type: "qr_mpm",
        provider: "sandbox",
      },
    );
    expect(confirmed.status).toBe(200);
    const row = managerPage.getByTestId(`payment-${qr.id}`);
    await expect.poll(() => row.locator('[data-field="status"]').textContent()).toBe("pending");

    const intent = await postGraphQL(
      platform.baseUrl,
      `query ($store: Int!, $id: String!) { store(id: $store) { payment_intent(id: $id) { provider_transaction_id } } }`,
      { store: demo.store.id, id: qr.payment_intent_id },
      manager.access_token,
    );
    const transaction = intent.body.data.store.payment_intent.provider_transaction_id;
    const paid = await fetch(`${demo.provider.base_url}/sandbox/transactions/${transaction}/pay`, { method: "POST" });
    expect(paid.status).toBe(200);

    await managerPage
      .getByRole("list", { name: "Store events" })
      .getByText(`Payment intent ${qr.payment_intent_id}: succeeded`)
      .waitFor();
    await expect.poll(() => row.locator('[data-field="status"]').textContent(), { timeout: 20_000 }).toBe("completed");
    await totalsMatchApi(managerPage);
    await screenshot(managerPage, "store-day");
    expect(await seriousViolations(managerPage)).toEqual([]);
  });

  it("adds a cash sale and its tip to the day's totals as it happens", async () => {
    const before = (await apiDay()).totals.find((total: { payment_method: string }) => total.payment_method === "CASH");
    const sale = await rest("POST", "/payments", {
      bill_id: await bill(),
      amount: 2684,
      tip_amount: 200,
      payment_method: { type: "CASH" },
      cash_received: 3000,
    });
    expect(sale.status).toBe("completed");
    await managerPage.getByTestId(`payment-${sale.id}`).waitFor();
    await totalsMatchApi(managerPage);
    const cash = (await shownTotals(managerPage)).find((total) => total.payment_method === "CASH")!;
    expect(cash).toMatchObject({
      payment_count: before.payment_count + 1,
      gross_amount: before.gross_amount + 2884,
      tip_amount: before.tip_amount + 200,
    });
  });

  it("marks a cash sale the terminal recorded offline where the day's payments are listed", async () => {
    const happened = new Date(clock().getTime() - 10 * 60_000);
    const sale = await rest("POST", "/payments", {
      bill_id: await bill(),
      amount: 2684,
      payment_method: { type: "CASH" },
      cash_received: 3000,
      occurred_at: happened.toISOString(),
    });
    expect(sale).toMatchObject({ status: "completed", recorded_offline: true });
    const live = await cashSale();
    const mark = (page: Page, id: string) => page.getByTestId(`payment-${id}`).getByText("Recorded offline");
    await mark(managerPage, sale.id).waitFor();
    await managerPage.getByTestId(`payment-${live.id}`).waitFor();
    expect(await mark(managerPage, live.id).count()).toBe(0);
    await totalsMatchApi(managerPage);

    const search = await signedInPage(manager);
    await search.goto(`${platform.baseUrl}/console/payments?method=CASH`);
    await mark(search, sale.id).waitFor();
    expect(await mark(search, live.id).count()).toBe(0);
    expect(await seriousViolations(search)).toEqual([]);
    await search.context().close();
  });

  it("shows it is reconnecting when the socket drops, then resubscribes and reads what it missed", async () => {
    proxy.cut();
    await managerPage.getByTestId("live-status").getByText("Reconnecting…").waitFor();
    const missed = await cashSale();
    proxy.restore();
    await managerPage.getByTestId("live-status").getByText("Live").waitFor();
    await managerPage.getByTestId(`payment-${missed.id}`).waitFor();
    await totalsMatchApi(managerPage);
    // Resubscribed: the next sale arrives by the feed again.
    const next = await cashSale();
    await managerPage
      .getByRole("list", { name: "Store events" })
      .getByText(`CASH payment ${next.id.slice(0, 8)}`)
      .first()
      .waitFor();
  });

  it("refuses a staff member's refund without the approver's PIN and takes it with the PIN", async () => {
    const sale = await cashSale();
    refunded = sale.id;
    const staff = await logIn(platform.baseUrl, demoUser(demo, "STAFF"));
    const page = await signedInPage(staff);
    await page.goto(`${platform.baseUrl}/console/payments/${sale.id}`);
    const form = page.getByRole("form", { name: "Refund" });
    await form.getByLabel("Amount").fill("500");
    await form.getByLabel("Reason").fill("cold ramen");
    await form.getByLabel("Approver's login id").fill(demoUser(demo, "STAFF_LEADER").login_id);
    await form.getByRole("button", { name: "Refund" }).click();
    const refused = form.getByRole("alert");
    await refused.waitFor();
    expect(await refused.textContent()).toContain("staff_pin");
    const unchanged = await postGraphQL(
      platform.baseUrl,
      `query ($id: ID!) { posRefundStatus(payment_id: $id) { refund_amount refundable_amount } }`,
      { id: sale.id },
      manager.access_token,
    );
    expect(unchanged.body.data.posRefundStatus).toEqual({ refund_amount: 0, refundable_amount: 2684 });

    await form.getByLabel("Approver's PIN").fill(demoUser(demo, "STAFF_LEADER").pin!);
    await form.getByRole("button", { name: "Refund" }).click();
    await form.getByRole("status").getByText("succeeded").waitFor();
    const status = await postGraphQL(
      platform.baseUrl,
      `query ($id: ID!) { posRefundStatus(payment_id: $id) { refund_amount refunds { amount staff_code } } }`,
      { id: sale.id },
      manager.access_token,
    );
    expect(status.body.data.posRefundStatus).toEqual({
      refund_amount: 500,
      refunds: [{ amount: 500, staff_code: demoUser(demo, "STAFF_LEADER").login_id }],
    });
    await expect
      .poll(() => page.getByTestId("refunded-amount").locator("[data-value]").getAttribute("data-value"))
      .toBe("500");
    await page.getByLabel(/receipt R\d{8}-\d{4}/).waitFor();
    await screenshot(page, "payment-refund");
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  // The store manager sells here.
  it("adds an e-money sale on a line of its own, shows its brand, and finds it by method", async () => {
    const token = manager.access_token;
    const line = async () =>
      (await apiDay()).totals.find((total: { payment_method: string }) => total.payment_method === "EMONEY");
    const before = await line();
    const payment_method = { type: "EMONEY", brand: "nanaco" };
    const sale = await rest("POST", "/payments", { bill_id: await bill(token), amount: 2684, payment_method }, token);
    const approved = await rest("PATCH", `/payments/${sale.id}`, { card_document_number: "00077" }, token);
    expect(approved.status).toBe("completed");
    await managerPage.getByTestId(`payment-${sale.id}`).getByText("EMONEY (nanaco)").waitFor();
    await totalsMatchApi(managerPage);
    const shown = (await shownTotals(managerPage)).find((total) => total.payment_method === "EMONEY")!;
    expect(shown).toMatchObject({ payment_count: before.payment_count + 1, gross_amount: before.gross_amount + 2684 });

    const search = await signedInPage(manager);
    await search.goto(`${platform.baseUrl}/console/payments?method=EMONEY`);
    await search.getByTestId(`payment-${sale.id}`).getByText("EMONEY (nanaco)").waitFor();
    expect(await search.getByRole("table", { name: "Payments found" }).getByText("CASH").count()).toBe(0);
    await search.goto(`${platform.baseUrl}/console/payments/${sale.id}`);
    await search.getByText("EMONEY (nanaco)").waitFor();
    expect(await seriousViolations(search)).toEqual([]);
    await search.context().close();
  });

  it("shows a customer's spend within the date range chosen, as the API counts it", async () => {
    const digits = String(Date.now() % 100_000_000).padStart(8, "0");
    const customer = await rest(
      "POST",
      "/api/v1/customers",
      { name: "Range Regular", phone: `+8190${digits}` },
      manager.access_token,
    );
    const order = await rest("POST", "/orders", {
      order_type: "dine_in",
      table_number: `C${++table}`,
      customer_id: customer.id,
      items: [{ sequence: 1, item_name: "Ramen", quantity: 1, unit_price: 1000 }],
    });
    const billed = await rest("POST", "/bills", {
      order_id: order.id,
      staff_code: demoUser(demo, "STAFF").login_id,
      tax_percentage: 10,
    });
    const sale = await rest("POST", "/payments", {
      bill_id: billed.id,
      amount: 1100,
      tip_amount: 100,
      payment_method: { type: "CASH" },
      cash_received: 1200,
    });
    expect(sale.status).toBe("completed");
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo" }).format(clock());
    const SPEND = `query ($id: ID!, $from: String!, $to: String!) { customer(id: $id) { spend(from: $from, to: $to) {
      spent_amount } } }`;
    const { body } = await postGraphQL(
      platform.baseUrl,
      SPEND,
      { id: customer.id, from: today, to: today },
      manager.access_token,
    );
    expect(body.data.customer.spend.spent_amount).toBe(1100);

    const page = await signedInPage(manager);
    await page.getByRole("link", { name: "Customers" }).click();
    await page.getByLabel("Phone").fill(`+8190${digits}`);
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("button", { name: customer.customer_number }).click();
    await page.getByLabel("From", { exact: true }).fill(today);
    await page.getByLabel("To", { exact: true }).fill(today);
    const shown = page.getByTestId("customer-spend").locator("[data-value]").first();
    await expect.poll(() => shown.getAttribute("data-value")).toBe(String(body.data.customer.spend.spent_amount));
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it("closes the day and shows the totals the API reports for it", async () => {
    await totalsMatchApi(managerPage);
    await managerPage.getByRole("button", { name: "Close the day" }).click();
    await managerPage.getByTestId("settlement-status").getByText("closed").waitFor();
    expect((await apiDay()).settlement).toEqual({ status: "closed" });
    await totalsMatchApi(managerPage);
    expect(await managerPage.getByRole("button", { name: "Close the day" }).count()).toBe(0);
    await screenshot(managerPage, "store-day-closed");
  });

  it("finds the refund in the audit trail with its approver, linked to its payment", async () => {
    const approver = demoUser(demo, "STAFF_LEADER").login_id;
    const AUDIT = `query { auditLog(filter: { event: "payment.refunded" }, limit: 50) { nodes { id target_id metadata } } }`;
    const record = await vi.waitFor(
      async () => {
        const { body } = await postGraphQL(platform.baseUrl, AUDIT, {}, manager.access_token);
        const found = body.data.auditLog.nodes.find((node: { target_id: string }) => node.target_id === refunded);
        expect(found).toBeDefined();
        return found as { id: string; metadata: { approver_login_id: string } };
      },
      { timeout: 15_000, interval: 200 },
    );
    expect(record.metadata.approver_login_id).toBe(approver);

    await managerPage.getByRole("link", { name: "Audit trail" }).click();
    await managerPage.getByLabel(/^Event/).fill("payment.refunded");
    await managerPage.getByRole("button", { name: "Search" }).click();
    const row = managerPage.getByRole("table", { name: "Audit records" }).getByTestId(`audit-${record.id}`);
    await row.waitFor();
    expect(await row.locator('[data-field="event"]').textContent()).toBe("payment.refunded");
    expect(JSON.parse((await row.locator('[data-field="metadata"]').textContent())!)).toEqual(record.metadata);
    await screenshot(managerPage, "audit-trail");
    expect(await seriousViolations(managerPage)).toEqual([]);
    await row.getByRole("link", { name: `payment ${refunded.slice(0, 8)}` }).click();
    await managerPage.getByTestId("refunded-amount").waitFor();
    expect(managerPage.url()).toContain(`/console/payments/${refunded}`);
  });

  it("redelivers a partner's dead letter from the webhook page", async () => {
    await signed(platform.baseUrl, demo.partner, "PUT", "/v1/api_key/webhook", { webhook_url: receiver.url });
    receiver.answer([503, 503, 503], 204);
    const created = await signed(platform.baseUrl, demo.partner, "POST", "/v1/payment_intents", {
      amount: 990,
      currency: "JPY",
      payment_method_types: ["credit_card"],
      merchant_ref_id: `order-${randomUUID()}`,
      merchant_store_id: demo.store.code,
    });
    const capture = `/v1/payment_intents/${created.body.id}/capture`;
    expect((await signed(platform.baseUrl, demo.partner, "POST", capture, {})).status).toBe(200);
    const operator = await logIn(platform.baseUrl, demoUser(demo, "SYSTEM_OP"), nextStep());
    const LETTERS = `query ($id: String) { partnerWebhookDeadLetters(client_id: $id) { id body } }`;
    const letter = await vi.waitFor(
      async () => {
        const { body } = await postGraphQL(
          platform.baseUrl,
          LETTERS,
          { id: demo.partner.client_id },
          operator.access_token,
        );
        const found = body.data.partnerWebhookDeadLetters.find((dead: { body: string }) =>
          dead.body.includes(created.body.id),
        );
        expect(found).toBeDefined();
        return found as { id: string };
      },
      { timeout: 15_000, interval: 200 },
    );

    const page = await signedInPage(operator);
    await page.getByRole("link", { name: "Partner webhooks" }).click();
    await page.getByLabel("API key (client_id)").fill(demo.partner.client_id);
    await page.getByRole("button", { name: "Show" }).click();
    const dead = page.getByRole("table", { name: "Dead letters" }).getByTestId(`dead-${letter.id}`);
    await expect.poll(() => dead.locator('[data-field="attempts"]').textContent()).toBe("3");
    await screenshot(page, "partner-webhooks");
    expect(await seriousViolations(page)).toEqual([]);
    const seen = receiver.received.length;
    await page.getByRole("button", { name: `Redeliver ${letter.id}` }).click();
    await expect
      .poll(() => receiver.received.slice(seen).some((r) => r.headers["webhook-id"] === letter.id))
      .toBe(true);
    const delivered = page.getByRole("table", { name: "Recent deliveries" }).getByTestId(`delivery-${letter.id}`);
    await expect
      .poll(async () => {
        await page.getByRole("button", { name: "Refresh" }).click();
        return delivered.locator('[data-field="status"]').textContent();
      })
      .toBe("delivered");
    expect(await page.getByRole("table", { name: "Dead letters" }).getByTestId(`dead-${letter.id}`).count()).toBe(0);
    const restriction = page.getByRole("group", { name: "API key restriction" });
    expect(await restriction.textContent()).toContain("every partner operation");

    // A restricted key shows what it may do.
    const CREATE = `mutation ($name: String!) {
      createClientPartner(input: { name: $name }) { id }
    }`;
    const { body: made } = await postGraphQL(
      platform.baseUrl,
      CREATE,
      { name: "Restricted partner" },
      operator.access_token,
    );
    const { body: issued } = await postGraphQL(
      platform.baseUrl,
      'mutation ($id: Int!) { issueApiKey(client_partner_id: $id, input: { permissions: ["webhooks:manage"], store_ids: [7] }) { client_id } }',
      { id: made.data.createClientPartner.id },
      operator.access_token,
    );
    await page.getByLabel("API key (client_id)").fill(issued.data.issueApiKey.client_id);
    await page.getByRole("button", { name: "Show" }).click();
    await expect.poll(() => restriction.textContent()).toContain("webhooks:manage");
    expect(await restriction.textContent()).toContain("for stores 7 only");
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });
});
