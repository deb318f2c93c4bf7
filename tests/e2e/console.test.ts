import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoFile } from "../../apps/platform/src/demo";
import { ensureConsoleBuilt, launchChromium, logInInConsole } from "../support/browser";
import { demoUser, readDemo, startTestPlatform, type TestPlatform } from "../support/platform";

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

  async function freshPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    return { context, page: await context.newPage() };
  }

  it("logs a merchant admin in with the TOTP code and shows the demo tenant's tree", async () => {
    const { context, page } = await freshPage();
    await logInInConsole(page, platform.baseUrl, demoUser(demo, "MERCHANT_ADMIN"), nextStep());
    await page.getByRole("heading", { name: "Tenant tree" }).waitFor();
    const tree = page.getByRole("tree", { name: "Tenant tree" });
    await tree.getByText(demo.store.code, { exact: true }).waitFor();
    expect(page.url()).toBe(`${platform.baseUrl}/console/tree`);
    await context.close();
  });

  it("says so when the TOTP code is wrong, and lets the person try again", async () => {
    const { context, page } = await freshPage();
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
});
