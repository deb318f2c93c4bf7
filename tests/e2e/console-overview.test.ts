import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { businessDateOf } from "@pos-cloud/common";
import type { JWK } from "jose";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoFile } from "../../apps/platform/src/demo";
import { embeddedSftpControl } from "../../apps/sandbox-sftp/src/embedded";
import {
  documentationScreenshot,
  ensureConsoleBuilt,
  launchChromium,
  logInInConsole,
  seriousViolations,
} from "../support/browser";
import { deviceToken } from "../support/device";
import { signed } from "../support/gateway";
import { demoUser, logIn, postGraphQL, readDemo, startTestPlatform, type TestPlatform } from "../support/platform";

type Demo = DemoFile & { device: { client_id: string; private_jwk: JWK } };

const OVERVIEW = `query ($store_id: Int) { salesOverview(store_id: $store_id) {
  today { gross_amount net_amount refund_amount payment_count totals { payment_method payment_count gross_amount net_amount } }
  by_hour { hour amount count } outcomes { succeeded failed declined expired in_flight success_rate } } }`;

// The overview in a real browser against the embedded platform: the merchant admin lands on it, every figure it
// shows is the API's answer (`data-value`), and the store's day shows the same sales by hour. The platform's clock runs ahead 30 s at each TOTP login.
describe("operator console: the business at a glance", () => {
  let platform: TestPlatform;
  let demo: Demo;
  let browser: Browser;
  let terminal: string;
  let admin: string;
  let page: Page;
  let ahead = 0;
  let table = 0;
  const clock = () => new Date(Date.now() + ahead);
  const nextStep = () => {
    ahead += 30_000;
    return clock();
  };

  const rest = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${terminal}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as any;
  };
  /** A cash sale of 1100 (1000 and 10% tax) at the demo store, to a customer when named. */
  async function cashSale(customer_id?: string) {
    const order = await rest("POST", "/orders", {
      order_type: "dine_in",
      table_number: `V${++table}`,
      customer_id,
      items: [{ sequence: 1, item_name: "Set", quantity: 1, unit_price: 1000 }],
    });
    const bill = await rest("POST", "/bills", {
      order_id: order.id,
      staff_code: demoUser(demo, "STAFF").login_id,
      tax_percentage: 10,
    });
    return rest("POST", "/payments", {
      bill_id: bill.id,
      amount: 1100,
      payment_method: { type: "CASH" },
      cash_received: 2000,
    });
  }
  /** A system operator's overview, in a browser context of its own (close it after). */
  async function operatorOverview() {
    const context = await browser.newContext();
    const operatorPage = await context.newPage();
    operatorPage.setDefaultTimeout(15_000);
    await logInInConsole(operatorPage, platform.baseUrl, demoUser(demo, "SYSTEM_OP"), nextStep());
    await operatorPage.getByRole("heading", { name: "Tenant tree" }).waitFor();
    await operatorPage.goto(`${platform.baseUrl}/console/overview`);
    return { context, operatorPage };
  }
  /** A QR difference at the demo store, as the daily reconciliation records one (pos-settlements.test.ts runs it). */
  const recordQrDifference = (name: string) =>
    platform.payments.prisma.providerDifference.create({
      data: {
        id: `pdf_${name}_${Date.now()}`,
        provider: "sandbox",
        business_date: businessDateOf(clock()),
        merchant_id: demo.merchant.id,
        store_id: demo.store.id,
        payment_intent_id: `pi_${name}`,
        provider_transaction_id: `txn_${name}`,
        field: "refunded_amount",
        expected: "0",
        actual: "684",
        detected_at: clock(),
      },
    });
  const apiOverview = async (storeId?: number) =>
    (await postGraphQL(platform.baseUrl, OVERVIEW, { store_id: storeId }, admin)).body.data.salesOverview;

  /** What the page shows: each figure's, method's and hour's API integer (`data-value`) or count. */
  const shown = (on: Page) =>
    on.locator("body").evaluate((body) => {
      const value = (element: ReturnType<typeof body.querySelector>) =>
        Number(element?.querySelector("[data-value]")?.getAttribute("data-value") ?? element?.textContent);
      const figure = (field: string) =>
        value(body.querySelector(`[data-testid="figure-${field}"] [data-field="${field}"]`));
      const rows = (label: string) => [...body.querySelectorAll(`table[aria-label="${label}"] tbody tr`)];
      const cell = (row: ReturnType<typeof body.querySelector> & object, field: string) =>
        value(row.querySelector(`[data-field="${field}"]`));
      return {
        today: {
          gross_amount: figure("gross_amount"),
          net_amount: figure("net_amount"),
          refund_amount: figure("refund_amount"),
          payment_count: figure("payment_count"),
          totals: rows("By payment method").map((row) => ({
            payment_method: row.querySelector("td")!.textContent,
            payment_count: cell(row, "payment_count"),
            gross_amount: cell(row, "gross_amount"),
            net_amount: cell(row, "net_amount"),
          })),
        },
        by_hour: rows("Sales by hour, per hour").map((row, hour) => ({
          hour,
          amount: cell(row, "amount"),
          count: cell(row, "count"),
        })),
        success_rate: body
          .querySelector('[data-testid="figure-success_rate"] [data-value]')
          ?.getAttribute("data-value"),
      };
    });
  const expected = async () => {
    const { today, by_hour, outcomes } = await apiOverview();
    return { today, by_hour, success_rate: String(outcomes.success_rate ?? "") };
  };
  /** Waits until the page shows the API's figures (they follow the stores' events). */
  const figuresMatchApi = (on: Page) =>
    expect
      .poll(
        async () => {
          const [onPage, api] = await Promise.all([shown(on), expected()]);
          return JSON.stringify(onPage) === JSON.stringify(api) ? "the same" : JSON.stringify({ onPage, api });
        },
        { timeout: 15_000 },
      )
      .toBe("the same");

  beforeAll(async () => {
    ensureConsoleBuilt();
    [platform, browser] = await Promise.all([
      // A partner's webhook that never answers is a dead letter within a second, a refused SMS is given up on as fast
      // (the open alerts' cases).
      startTestPlatform({
        clock,
        messageRetryDelaysMs: [100, 100],
        partnerWebhooks: { allowPrivateUrls: true, timeoutMs: 2_000, retryDelaysMs: [100, 100] },
      }),
      launchChromium(),
    ]);
    demo = readDemo(platform.dataDir) as Demo;
    terminal = await deviceToken(platform.baseUrl, demo.device, clock());
    admin = (await logIn(platform.baseUrl, demoUser(demo, "MERCHANT_ADMIN"), nextStep())).access_token;
    page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(15_000);
    expect((await cashSale()).status).toBe("completed");
    await logInInConsole(page, platform.baseUrl, demoUser(demo, "MERCHANT_ADMIN"), nextStep());
    // A console source newer than its build is built first, which can take most of a minute on a busy machine.
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  it("lands a merchant admin on the overview, showing the API's figures, with no serious accessibility problem", async () => {
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    expect(page.url()).toBe(`${platform.baseUrl}/console/overview`);
    await page.getByTestId("sales-by-hour-chart").locator("svg.recharts-surface").first().waitFor();
    await figuresMatchApi(page);
    expect((await shown(page)).today.payment_count).toBeGreaterThan(0);
    await page.getByTestId("live-status").getByText("Live").waitFor();
    await documentationScreenshot(page, "console-overview");
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("moves the totals and the chart with a sale, without a reload", async () => {
    await page.evaluate(() => Object.assign(globalThis, { stayedLoaded: true }));
    const before = await shown(page);
    terminal = await deviceToken(platform.baseUrl, demo.device, clock());
    expect((await cashSale()).status).toBe("completed");
    await expect
      .poll(async () => (await shown(page)).today.payment_count, { timeout: 15_000 })
      .toBe(before.today.payment_count + 1);
    const after = await shown(page);
    const total = (figures: typeof before) => figures.by_hour.reduce((sum, hour) => sum + hour.amount, 0);
    expect(total(after)).toBe(total(before) + 1100);
    await figuresMatchApi(page);
    expect(await page.evaluate(() => (globalThis as { stayedLoaded?: boolean }).stayedLoaded)).toBe(true);
  });

  it("links a payment method's figure to the payments behind it", async () => {
    await page.getByRole("table", { name: "By payment method" }).getByRole("link", { name: "CASH" }).click();
    await page.getByRole("heading", { name: "Payments", exact: true }).waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe("/console/payments");
    expect(url.searchParams.get("method")).toBe("CASH");
    await page.goBack();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
  });

  it("shows the same sales by hour on the store's day, and what the QR reconciliation found", async () => {
    await recordQrDifference("console_difference");
    await page.goto(`${platform.baseUrl}/console/day?store=${demo.store.id}`);
    await page.getByRole("table", { name: "Totals per method" }).waitFor();
    const difference = page.getByRole("table", { name: "QR differences" }).getByRole("row").filter({
      hasText: "pi_console_difference",
    });
    expect(await difference.textContent()).toMatch(/sandbox.*refunded_amount.*0.*684/);
    const api = (await apiOverview(demo.store.id)).by_hour;
    await expect
      .poll(async () => (await shown(page)).by_hour, { timeout: 15_000 })
      .toEqual(
        api.map(({ hour, amount, count }: { hour: number; amount: number; count: number }) => ({
          hour,
          amount,
          count,
        })),
      );
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("sends a store's ended day to the merchant's SFTP server again from the day's page", async () => {
    const sftp = JSON.parse(readFileSync(join(platform.dataDir, "sandbox-sftp", "config.json"), "utf8"));
    const configured = await postGraphQL(
      platform.baseUrl,
      `mutation ($input: ConfigureAccountingExportInput!) { configureAccountingExport(input: $input) { format } }`,
      {
        input: {
          merchant_id: demo.merchant.id,
          format: "json",
          host: "127.0.0.1",
          port: Number(new URL(sftp.base_url).port),
          username: sftp.account.username,
          password: sftp.account.password,
        },
      },
      admin,
    );
    expect(configured.body.errors).toBeUndefined();
    const yesterday = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo" }).format(
      new Date(clock().getTime() - 86_400_000),
    );
    await page.goto(`${platform.baseUrl}/console/day?store=${demo.store.id}&date=${yesterday}`);
    const shownDelivery = page.getByTestId("accounting-export-delivery");
    await shownDelivery.getByText("No file sent for this day yet.").waitFor();
    await page.getByRole("button", { name: "Send the accounting file again" }).click();
    const DELIVERIES = `query ($m: Int!, $s: Int, $d: String) { accountingExportDeliveries(merchant_id: $m, store_id: $s,
      date: $d) { file_name status attempts } }`;
    const api = async () =>
      (await postGraphQL(platform.baseUrl, DELIVERIES, { m: demo.merchant.id, s: demo.store.id, d: yesterday }, admin))
        .body.data.accountingExportDeliveries;
    await expect.poll(async () => (await api())[0]?.status, { timeout: 15_000 }).toBe("delivered");
    const [delivery] = await api();
    await expect
      .poll(() => shownDelivery.textContent())
      .toContain(`${delivery.file_name}: delivered after ${delivery.attempts} attempts`);
    const arrived = embeddedSftpControl(platform.dataDir).received();
    expect(arrived.map((file) => file.path)).toContain(`/${delivery.file_name}`);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("shows a partner's keys with their scopes, each linked to its webhook's deliveries and dead letters", async () => {
    const context = await browser.newContext();
    const operatorPage = await context.newPage();
    operatorPage.setDefaultTimeout(15_000);
    await logInInConsole(operatorPage, platform.baseUrl, demoUser(demo, "SYSTEM_OP"), nextStep());
    await operatorPage.getByRole("heading", { name: "Tenant tree" }).waitFor();
    await operatorPage.goto(`${platform.baseUrl}/console/partners?id=${demo.partner.client_partner_id}`);
    const key = operatorPage
      .getByRole("table", { name: "API keys" })
      .getByRole("row")
      .filter({ hasText: demo.partner.client_id });
    await key.waitFor();
    expect(await key.locator('[data-field="permissions"]').textContent()).toBe("every operation");
    expect(await seriousViolations(operatorPage)).toEqual([]);
    await key.getByRole("link", { name: "Deliveries and dead letters" }).click();
    await operatorPage.getByRole("heading", { name: "Recent deliveries" }).waitFor();
    expect(new URL(operatorPage.url()).searchParams.get("client_id")).toBe(demo.partner.client_id);
    await context.close();
  });

  it("counts the partners' dead letters for an operator, and the merchant's differences (card, QR) for its admin", async () => {
    // Nothing listens on the discard port: each attempt is refused, the third makes the delivery a dead letter.
    await signed(platform.baseUrl, demo.partner, "PUT", "/v1/api_key/webhook", { webhook_url: "http://127.0.0.1:9/" });
    const created = await signed(platform.baseUrl, demo.partner, "POST", "/v1/payment_intents", {
      amount: 990,
      currency: "JPY",
      payment_method_types: ["credit_card"],
      merchant_ref_id: `order-${randomUUID()}`,
      merchant_store_id: demo.store.code,
    });
    expect(created.status).toBe(201);
    const capture = `/v1/payment_intents/${created.body.id}/capture`;
    expect((await signed(platform.baseUrl, demo.partner, "POST", capture, {})).status).toBe(200);
    const operator = (await logIn(platform.baseUrl, demoUser(demo, "SYSTEM_OP"), nextStep())).access_token;
    const ALERTS = "query { paymentsAlerts { dead_letters expiring_api_keys } }";
    const alerts = async (token: string) =>
      (await postGraphQL(platform.baseUrl, ALERTS, {}, token)).body.data.paymentsAlerts;
    await expect.poll(async () => (await alerts(operator)).dead_letters, { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await alerts(admin)).toEqual({ dead_letters: null, expiring_api_keys: null });

    const { context, operatorPage } = await operatorOverview();
    const dead = operatorPage.getByTestId("alert-dead_letters").locator("[data-value]");
    await dead.waitFor();
    expect(Number(await dead.getAttribute("data-value"))).toBe((await alerts(operator)).dead_letters);
    const expiring = operatorPage.getByTestId("alert-expiring_api_keys").locator("[data-value]");
    expect(Number(await expiring.getAttribute("data-value"))).toBe((await alerts(operator)).expiring_api_keys);
    expect(await seriousViolations(operatorPage)).toEqual([]);
    await dead.click();
    await operatorPage.getByLabel("API key (client_id)").waitFor();
    await context.close();

    // The merchant admin sees the differences of its merchant (the card settlement's, the QR providers'), not the
    // partners' dead letters nor the messages, which carry no tenant.
    await recordQrDifference("alerts_difference");
    const TENANT_ALERTS = "query { posAlerts { card_settlement_differences } paymentsAlerts { qr_differences } }";
    const { body } = await postGraphQL(platform.baseUrl, TENANT_ALERTS, {}, admin);
    expect(body.data.paymentsAlerts.qr_differences).toBeGreaterThan(0);
    await page.goto(`${platform.baseUrl}/console/overview`);
    const differences = page.getByTestId("alert-card_settlement_differences").locator("[data-value]");
    expect(Number(await differences.getAttribute("data-value"))).toBe(body.data.posAlerts.card_settlement_differences);
    const qr = page.getByTestId("alert-qr_differences").locator("[data-value]");
    expect(Number(await qr.getAttribute("data-value"))).toBe(body.data.paymentsAlerts.qr_differences);
    for (const kind of ["dead_letters", "expiring_api_keys", "undeliverable_messages"])
      expect(await page.getByTestId(`alert-${kind}`).count()).toBe(0);
  });

  it("resolves a QR difference on the store's day with a note, shows who resolved it, and the overview counts one fewer", async () => {
    const recorded = await recordQrDifference("resolved_difference");
    const QR_ALERTS = "query { paymentsAlerts { qr_differences } }";
    const open = async () =>
      (await postGraphQL(platform.baseUrl, QR_ALERTS, {}, admin)).body.data.paymentsAlerts.qr_differences as number;
    const before = await open();
    await page.goto(`${platform.baseUrl}/console/day?store=${demo.store.id}`);
    const row = page.getByRole("table", { name: "QR differences" }).getByRole("row").filter({
      hasText: "pi_resolved_difference",
    });
    await row.getByRole("button", { name: `Resolve QR difference ${recorded.id}` }).click();
    const note = "refunded by hand at the provider's console";
    await row.getByLabel(`What was done about the QR difference ${recorded.id}`).fill(note);
    expect(await seriousViolations(page)).toEqual([]);
    await row.getByRole("button", { name: "Save resolution" }).click();
    const resolution = row.getByTestId("resolution");
    await resolution.waitFor();
    expect(await resolution.textContent()).toMatch(new RegExp(`^Resolved by user:[0-9a-f-]{36}, .+: ${note}$`));
    expect(await open()).toBe(before - 1);

    await page.goto(`${platform.baseUrl}/console/overview`);
    const qr = page.getByTestId("alert-qr_differences").locator("[data-value]");
    await expect.poll(async () => Number(await qr.getAttribute("data-value"))).toBe(before - 1);
  });

  it("resolves a day's card settlement differences on its page, and the overview counts one fewer", async () => {
    // A day of the demo store whose card exchange ended in a mismatch, as the nightly exchange leaves one
    // (pos-settlements.test.ts runs it against the sandbox acquirer).
    const date = businessDateOf(new Date(clock().getTime() - 3 * 86_400_000));
    const settled = await fetch(`${platform.baseUrl}/api/v1/settlements`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ store_id: demo.store.id, date, auto_close: true }),
    });
    expect(settled.status).toBe(201);
    const settlement = (await settled.json()) as { id: string };
    await platform.pos.prisma.cardSettlementExchange.create({
      data: {
        settlement_id: settlement.id,
        status: "mismatch",
        attempts: 1,
        claimed_until: clock(),
        differences: [{ field: "gross_amount", expected: 2684, actual: 1671 }],
      },
    });
    const POS_ALERTS = "query { posAlerts { card_settlement_differences } }";
    const open = async () =>
      (await postGraphQL(platform.baseUrl, POS_ALERTS, {}, admin)).body.data.posAlerts
        .card_settlement_differences as number;
    const before = await open();

    await page.goto(`${platform.baseUrl}/console/day?store=${demo.store.id}&date=${date}`);
    await page.getByRole("button", { name: "Resolve card differences" }).click();
    const note = "the acquirer corrected the file";
    await page.getByLabel("What was done about the card differences").fill(note);
    await page.getByRole("button", { name: "Save resolution" }).click();
    const resolution = page.getByTestId("resolution");
    await resolution.waitFor();
    expect(await resolution.textContent()).toMatch(new RegExp(`^Resolved by user:[0-9a-f-]{36}, .+: ${note}$`));
    expect(await open()).toBe(before - 1);
    expect(await seriousViolations(page)).toEqual([]);
    await documentationScreenshot(page, "console/store-day-resolved", { fullPage: true });

    await page.goto(`${platform.baseUrl}/console/overview`);
    const card = page.getByTestId("alert-card_settlement_differences").locator("[data-value]");
    await expect.poll(async () => Number(await card.getAttribute("data-value"))).toBe(before - 1);
  });

  it("counts the e-mail and SMS given up on, POS's and the portal's, as one line for an operator only, linked to the messages page", async () => {
    // The sandbox relay refuses numbers ending in 13: the customer's SMS receipt fails all three attempts.
    const phone = `+8190${String(Date.now()).slice(-8, -2)}13`;
    const customer = await fetch(`${platform.baseUrl}/api/v1/customers`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Unreachable Guest", phone, preferences: { receipt_delivery: "sms" } }),
    });
    expect(customer.status).toBe(201);
    // A device token lasts 90 s, and the clock has run ahead at each login since the first sales.
    terminal = await deviceToken(platform.baseUrl, demo.device, clock());
    expect((await cashSale(((await customer.json()) as { id: string }).id)).status).toBe("completed");
    const operator = (await logIn(platform.baseUrl, demoUser(demo, "SYSTEM_OP"), nextStep())).access_token;
    const MESSAGES = "query { posAlerts { undeliverable_messages } portalAlerts { undeliverable_messages } }";
    const counts = async (token: string) => {
      const { data } = (await postGraphQL(platform.baseUrl, MESSAGES, {}, token)).body;
      return [data.posAlerts.undeliverable_messages, data.portalAlerts.undeliverable_messages];
    };
    await expect.poll(async () => (await counts(operator))[0], { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await counts(admin)).toEqual([null, null]);

    const { context, operatorPage } = await operatorOverview();
    const line = operatorPage.getByTestId("alert-undeliverable_messages");
    const [pos, portal] = await counts(operator);
    expect(portal).toEqual(expect.any(Number));
    expect(Number(await line.locator("[data-value]").getAttribute("data-value"))).toBe(pos + portal);

    // The count's link lists them: the receipt to the customer's phone, its number down to the last 4 digits.
    await line.getByRole("link").click();
    await operatorPage.getByRole("heading", { name: "Messages" }).waitFor();
    const receipts = operatorPage.getByRole("table", { name: "Receipts and operators' mails (POS)" });
    const receipt = receipts
      .getByRole("row")
      .filter({ hasText: `***${phone.slice(-4)}` })
      .first();
    await receipt.waitFor();
    expect(await receipt.locator('[data-field="kind"]').textContent()).toBe("receipt");
    expect(await receipt.locator('[data-field="channel"]').textContent()).toBe("sms");
    expect(await operatorPage.locator("body").textContent()).not.toContain(phone.slice(1));
    expect(await seriousViolations(operatorPage)).toEqual([]);
    await documentationScreenshot(operatorPage, "console/messages", { fullPage: true });
    await context.close();
  });
});
