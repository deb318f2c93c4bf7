import { exportJWK, generateKeyPair } from "jose";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoFile } from "../../apps/platform/src/demo";
import {
  documentationScreenshot,
  ensureConsoleBuilt,
  launchChromium,
  logInInConsole,
  seriousViolations,
} from "../support/browser";
import { deviceToken } from "../support/device";
import { PASSWORD } from "../support/identity";
import {
  demoUser,
  getJson,
  postGraphQL,
  postJson,
  readDemo,
  startTestPlatform,
  type TestPlatform,
} from "../support/platform";
import { operator } from "../support/portal-seed";

const STORE_PAYMENT_CONFIG = "query StorePaymentConfig($id: Int!) { store(id: $id) { payment_config } }";

// The operator console in a real browser (Debian's chromium) against the embedded platform. The platform's clock
// runs ahead by 30 s at each login, so every TOTP login has a step of its own.
describe("operator console", () => {
  let platform: TestPlatform;
  let demo: DemoFile;
  let browser: Browser;
  let ahead = 0;
  const clock = () => new Date(Date.now() + ahead);
  const nextStep = () => {
    ahead += 30_000;
    return clock();
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    [platform, browser] = await Promise.all([startTestPlatform({ clock }), launchChromium()]);
    demo = readDemo(platform.dataDir);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  async function loggedIn(
    user: Parameters<typeof logInInConsole>[2],
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await logInInConsole(page, platform.baseUrl, user, nextStep());
    // L1 to L4 land on the overview (tests/e2e/console-overview.test.ts); these tests start from the tree.
    await page.getByRole("heading", { name: /^(Overview|Tenant tree)$/ }).waitFor();
    await page.getByRole("link", { name: "Tenant tree" }).click();
    await page.getByRole("heading", { name: "Tenant tree" }).waitFor();
    return { context, page };
  }
  const storePage = (id: number) => `${platform.baseUrl}/console/stores/${id}`;

  it("logs a merchant admin in with the TOTP code and shows the demo tenant's tree", async () => {
    const { context, page } = await loggedIn(demoUser(demo, "MERCHANT_ADMIN"));
    const tree = page.getByRole("tree", { name: "Tenant tree" });
    await tree.getByText(demo.store.code, { exact: true }).waitFor();
    expect(page.url()).toBe(`${platform.baseUrl}/console/tree`);
    await documentationScreenshot(page, "console-tree");
    await context.close();
  });

  it("says so when the TOTP code is wrong, and lets the person try again", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const user = demoUser(demo, "AREA_MANAGER");
    await page.goto(`${platform.baseUrl}/console/login`);
    await page.getByLabel("Login id").fill(user.login_id);
    await page.getByLabel(/^Password/).fill(user.password!);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByLabel("Verification code").first().waitFor();
    await page.keyboard.type("000000");
    await page.getByRole("button", { name: "Verify" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/code/i);
    await context.close();
  });

  it("provisions a terminal end to end: a code in the console, the terminal registers and takes a token, it shows active", async () => {
    const { context, page } = await loggedIn(demoUser(demo, "STORE_MANAGER"));
    await page.goto(storePage(demo.store.id));
    await page.getByRole("button", { name: "Issue activation code" }).click();
    const code = (await page.getByTestId("shown-once").textContent())!;
    expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    await expect(page.getByRole("img", { name: /QR code of activation code/ }).count()).resolves.toBe(1);

    // The terminal, through the REST API only: it registers with the code, then signs a client assertion.
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const serial = `CONSOLE-${Date.now()}`;
    const registered = await postJson(platform.baseUrl, "/api/v1/device/provision/register", {
      activation_code: code,
      serial_number: serial,
      public_key_jwk: await exportJWK(publicKey),
      model: "A920",
      manufacturer: "PAX",
    });
    expect(registered).toMatchObject({ status: 201, body: { status: "active", store_id: demo.store.id } });
    const client_id = (registered.body as { client_id: string }).client_id;
    await expect(
      deviceToken(platform.baseUrl, { client_id, private_jwk: await exportJWK(privateKey) }),
    ).resolves.toEqual(expect.any(String));

    await page.getByRole("button", { name: "Done" }).click();
    const row = page.getByTestId(`device-${serial}`);
    await row.getByText("active", { exact: true }).waitFor({ timeout: 15_000 });
    await documentationScreenshot(page, "console-store");
    await row.getByRole("button", { name: `Suspend ${serial}` }).click();
    await row.getByText("suspended", { exact: true }).waitFor();
    await context.close();
  });

  it("creates a staff member with a PIN, who can then log in", async () => {
    const { context, page } = await loggedIn(demoUser(demo, "STORE_MANAGER"));
    await page.goto(storePage(demo.store.id));
    const form = page.getByRole("form", { name: "New staff member" });
    await form.getByLabel("Name").fill("Console Staff");
    await form.getByLabel("PIN (6 digits)").fill("246810");
    await form.getByRole("button", { name: "Create staff member" }).click();
    const row = page.getByRole("row").filter({ hasText: "Console Staff" });
    await row.waitFor();
    const loginId = (await row.getByRole("cell").first().textContent())!;
    expect(loginId).toMatch(/^STF-/);
    const pinLogin = await postJson(platform.baseUrl, "/api/v1/auth/user/pin-login", {
      login_id: loginId,
      pin: "246810",
    });
    expect(pinLogin.status).toBe(200);
    await context.close();
  });

  it("lets a merchant admin set a store's tip ceiling and give it back to the merchant's default, not a store manager", async () => {
    const { context, page } = await loggedIn(demoUser(demo, "MERCHANT_ADMIN"));
    await page.goto(storePage(demo.store.id));
    const shown = (text: string | RegExp, on = page) =>
      on.getByTestId("tip-ceiling").filter({ hasText: text }).waitFor();
    await shown(/20 %.*\((inherited from .*|the platform default)\)/);
    const input = page.getByLabel("Tip ceiling (%, 0 to 100)");
    const save = page.getByRole("button", { name: "Save tip ceiling" });
    await input.fill("");
    await save.click();
    const refusal = page.getByRole("alert").filter({ hasText: "Check the form" });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain("payment_config.tip_ceiling_percent");

    await input.fill("12");
    await save.click();
    await shown("12 % above its amount for a tip (this store's own)");
    // With the success notification showing: its close button is named.
    await page.getByText("Tip ceiling saved").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await documentationScreenshot(page, "console/store-tip-ceiling", { fullPage: true });
    await page.reload();
    await shown("12 % above its amount for a tip (this store's own)");
    const token = String(
      await page.evaluate(`JSON.parse(sessionStorage.getItem("pos-cloud-console-session")).access_token`),
    );
    const paymentConfig = async () =>
      (await postGraphQL(platform.baseUrl, STORE_PAYMENT_CONFIG, { id: demo.store.id }, token)).body.data.store
        .payment_config;
    await expect(paymentConfig()).resolves.toMatchObject({ tip_ceiling_percent: 12 });

    await page.getByRole("button", { name: "Use the merchant's default" }).click();
    await shown(/20 %.*\((inherited from .*|the platform default)\)/);
    await expect(paymentConfig()).resolves.not.toHaveProperty("tip_ceiling_percent");
    await context.close();

    const manager = await loggedIn(demoUser(demo, "STORE_MANAGER"));
    await manager.page.goto(storePage(demo.store.id));
    await shown(/20 %/, manager.page);
    expect(await manager.page.getByLabel("Tip ceiling (%, 0 to 100)").count()).toBe(0);
    expect(await manager.page.getByRole("button", { name: "Save tip ceiling" }).count()).toBe(0);
    await manager.context.close();
  });

  it("lets a PSP admin grant a partner a store from the partner's page", async () => {
    const partner = await platform.partners.createPartner("Console grantee");
    const { context, page } = await loggedIn(demoUser(demo, "PSP_ADMIN"));
    await page.getByRole("link", { name: "Client partner" }).click();
    await page.getByLabel("Client partner id").fill(String(partner.id));
    await page.getByRole("button", { name: "Show" }).click();
    await page.getByText("No grants: this partner acts on no store.").waitFor();
    await page.getByLabel("Merchant id").fill(String(demo.merchant.id));
    await page.getByLabel("Store ids (none: the whole merchant)").fill(String(demo.store.id));
    await page.getByRole("button", { name: "Grant" }).click();
    const row = page.getByRole("table", { name: "Grants" }).getByRole("row").filter({ hasText: "active" });
    await row.waitFor();
    expect(await row.locator('[data-field="store"]').textContent()).toBe(String(demo.store.id));
    expect(await seriousViolations(page)).toEqual([]);
    await documentationScreenshot(page, "console-partner-grants");
    const grants = await platform.payments.grants.partnerGrants(operator, partner.id, {});
    expect(grants.nodes).toMatchObject([{ merchant_id: demo.merchant.id, store_id: demo.store.id, status: "active" }]);
    await context.close();
  });

  it("keeps a store manager to its store, in the tree and at a typed URL", async () => {
    const other = await platform.portal.tenants.createStore(operator, {
      merchant_id: demo.merchant.id,
      code: `OTHER-${Date.now() % 100000}`,
      name: "Another store",
    });
    const { context, page } = await loggedIn(demoUser(demo, "STORE_MANAGER"));
    const tree = page.getByRole("tree", { name: "Tenant tree" });
    await tree.getByText(demo.store.code, { exact: true }).waitFor();
    expect(await tree.getByText(other.code, { exact: true }).count()).toBe(0);
    await page.goto(storePage(other.id));
    const alert = page.getByRole("alert").filter({ hasText: "Not allowed" });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/forbidden|outside|reach|not allowed/i);
    await context.close();
  });

  it("has no serious or critical accessibility violation on any page; an operator acts as a user and comes back", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${platform.baseUrl}/console/login`);
    await page.getByLabel("Login id").waitFor();
    const found: Record<string, unknown> = { login: await seriousViolations(page) };
    await logInInConsole(page, platform.baseUrl, demoUser(demo, "SYSTEM_OP"), nextStep());
    await page.getByRole("tree", { name: "Tenant tree" }).getByText(demo.store.code, { exact: true }).waitFor();
    found.tree = await seriousViolations(page);
    await page.goto(storePage(demo.store.id));
    await page.getByRole("heading", { name: "Terminals" }).waitFor();
    found.store = await seriousViolations(page);
    await page.getByRole("link", { name: "App updates" }).click();
    await page.getByRole("heading", { name: "Register a version" }).waitFor();
    found.appUpdates = await seriousViolations(page);
    await page.getByRole("link", { name: "Users" }).click();
    const manager = demoUser(demo, "STORE_MANAGER");
    const actAs = page.getByRole("button", { name: `Act as ${manager.login_id}` });
    await actAs.waitFor();
    found.users = await seriousViolations(page);
    await page.goto(`${platform.baseUrl}/console/no-such-page`);
    await page.getByText("No such page").waitFor();
    found.notFound = await seriousViolations(page);
    expect(found).toEqual({ login: [], tree: [], store: [], appUpdates: [], users: [], notFound: [] });

    await page.getByRole("link", { name: "Users" }).click();
    await actAs.click();
    const banner = page.getByRole("alert").filter({ hasText: "You are acting as another user" });
    await banner.waitFor();
    expect(await page.getByTestId("role").textContent()).toBe("STORE_MANAGER");
    await banner.getByRole("button", { name: "End impersonation" }).click();
    await page.getByRole("heading", { name: "Users" }).waitFor();
    expect(await page.getByTestId("role").textContent()).toBe("SYSTEM_OP");

    // "Log out" while acting as the user ends the impersonation alone: its token is refused, the operator is back.
    await actAs.click();
    await banner.waitFor();
    const impersonation = await page.evaluate(
      `JSON.parse(sessionStorage.getItem("pos-cloud-console-session")).access_token`,
    );
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "Users" }).waitFor();
    await banner.waitFor({ state: "detached" });
    expect(await page.getByTestId("role").textContent()).toBe("SYSTEM_OP");
    await expect
      .poll(async () => (await getJson(platform.baseUrl, "/api/v1/users?limit=1", String(impersonation))).status)
      .toBe(401);
    await context.close();
  });

  it("says when the session has expired and when the account is locked", async () => {
    const { context, page } = await loggedIn(demoUser(demo, "AREA_MANAGER"));
    // The refresh token is refused (it is not one the platform issued): the session ends as expired.
    await page.evaluate(`(() => {
      const key = "pos-cloud-console-session";
      const stored = JSON.parse(sessionStorage.getItem(key));
      sessionStorage.setItem(key, JSON.stringify({ ...stored, refresh_token: "not-a-token", expires_at: Date.now() }));
    })()`);
    await page.reload();
    await page.getByText("Your session has expired. Log in again.").waitFor();

    const user = await platform.portal.users.createUser({
      role: "STORE_MANAGER",
      store_id: demo.store.id,
      password: PASSWORD,
    });
    for (let attempt = 0; attempt < 5; attempt++)
      await postJson(platform.baseUrl, "/api/v1/auth/user/login", {
        login_id: user.login_id,
        password: "wrong password!",
      });
    await page.getByLabel("Login id").fill(user.login_id);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "Account locked" });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/until/);
    await context.close();
  });

  it("renders a tree of 400 stores within a second of the answer", async () => {
    const merchant = await platform.portal.tenants.createMerchant(operator, {
      psp_id: demo.psp.id,
      code: `M400-${Date.now() % 100000}`,
      name: "Four hundred stores",
    });
    // A few at a time: every store write opens a transaction on the one embedded connection.
    for (let batch = 0; batch < 400; batch += 5)
      await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          platform.portal.tenants.createStore(operator, {
            merchant_id: merchant.id,
            code: `S${String(batch + i).padStart(3, "0")}`,
            name: `Store ${batch + i}`,
          }),
        ),
      );
    const admin = await platform.portal.users.createUser({
      role: "MERCHANT_ADMIN",
      merchant_id: merchant.id,
      password: PASSWORD,
    });
    const { context, page } = await loggedIn({
      login_id: admin.login_id,
      password: PASSWORD,
      totp_secret: admin.totp_secret!,
    });
    const tree = page.getByRole("tree", { name: "Tenant tree" });
    await tree.getByText("S399", { exact: true }).waitFor();
    // Each time the tree page gets its answer it measures its render (User Timing). The machine is shared, so the
    // tree is rendered twice (the second time from the client's cache) and the better of the two counts.
    const renders = (count: number) =>
      page.evaluate<number[]>(`(async () => {
        const durations = () => performance.getEntriesByName("tenant-tree:render").map((entry) => entry.duration);
        while (durations().length < ${count}) await new Promise((resolve) => requestAnimationFrame(resolve));
        return durations();
      })()`);
    await renders(1);
    await page.getByRole("link", { name: "Users" }).click();
    await page.getByRole("heading", { name: "Users" }).waitFor();
    await page.getByRole("link", { name: "Tenant tree" }).click();
    const durations = await renders(2);
    expect(Math.min(...durations), `rendered in ${durations.map(Math.round).join(" and ")} ms`).toBeLessThan(1000);
    await page.getByLabel("Filter by name or code").fill("S123");
    await expect.poll(() => tree.getByRole("treeitem").count()).toBeLessThan(5);
    await context.close();
  });
});
