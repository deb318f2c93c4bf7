import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { repositoryRoot } from "@pos-cloud/common";
import { generate } from "otplib";
import { type Browser, chromium, type Page } from "playwright-core";
import type { DemoUser } from "../../apps/platform/src/demo";

const consoleRoot = join(repositoryRoot, "apps", "console");

function newestChange(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

/**
 * The console as the edge serves it: built again when a source changed since the last build, so a browser test
 * never runs an old console (a clean install builds it in `postinstall`).
 */
export function ensureConsoleBuilt() {
  const builtAt = (() => {
    try {
      return statSync(join(consoleRoot, "dist", "index.html")).mtimeMs;
    } catch {
      return 0;
    }
  })();
  const sources = ["src", "index.html", "vite.config.ts", "first-load.ts"].map((name) => join(consoleRoot, name));
  if (Math.max(...sources.map(newestChange)) > builtAt)
    // vitest's NODE_ENV=test would make Vite bundle React's development build.
    execFileSync("npm", ["run", "build:console"], {
      cwd: repositoryRoot,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, NODE_ENV: "production" },
    });
}

/** Debian's chromium (Playwright's own browser download is not reachable here); no sandbox as root. */
export function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? execFileSync("which", ["chromium"], { encoding: "utf8" }).trim();
  return chromium.launch({ executablePath, args: process.getuid?.() === 0 ? ["--no-sandbox"] : [] });
}

/**
 * A person's login in the console: login id and password, then the TOTP code of `at` (the platform's clock; a code
 * is accepted once, so each login of a user needs a later 30-second step).
 */
export async function logInInConsole(
  page: Page,
  baseUrl: string,
  user: Pick<DemoUser, "login_id" | "password" | "totp_secret">,
  at: Date,
) {
  await page.goto(`${baseUrl}/console/login`);
  await page.getByLabel("Login id").fill(user.login_id);
  await page.getByLabel(/^Password/).fill(user.password!);
  await page.getByRole("button", { name: "Log in" }).click();
  const code = await generate({ secret: user.totp_secret!, epoch: Math.floor(at.getTime() / 1000) });
  await page.getByLabel("Verification code").first().waitFor();
  await page.keyboard.type(code);
  await page.getByRole("button", { name: "Verify" }).click();
}

/** The serious and critical accessibility violations axe finds on the page as it is now (rule id and nodes). */
export async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => ({ id: violation.id, nodes: violation.nodes.map((node) => node.target.join(" ")) }));
}

/**
 * With `CONSOLE_SCREENSHOTS=1`, a browser test takes a documentation screenshot again: `docs/<name>.png` (the README's
 * `console-tree`, the pages' `console/store-day`), the viewport or the whole page. Without it a run writes nothing.
 */
export async function documentationScreenshot(page: Page, name: string, options: { fullPage?: boolean } = {}) {
  if (!process.env.CONSOLE_SCREENSHOTS) return;
  if (!options.fullPage) await page.setViewportSize({ width: 1280, height: 720 });
  // Scrolled, a full-page capture draws the fixed header where the viewport was.
  else await page.evaluate("window.scrollTo(0, 0)");
  await page.screenshot({ path: join(repositoryRoot, "docs", `${name}.png`), fullPage: options.fullPage });
}
