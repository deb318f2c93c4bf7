import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoFile } from "../../apps/platform/src/demo";
import { runProviderCli as runCliInProcess } from "../../apps/sandbox-provider/src/provider-cli";
import { startTestPlatform, type TestPlatform } from "../support/platform";

function runProviderCli(dataDir: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn("npm", ["run", "provider", "--silent", "--", ...args], {
    cwd: repositoryRoot,
    env: { ...process.env, DATA_DIR: dataDir },
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

describe("the embedded sandbox QR provider", () => {
  let platform: TestPlatform;
  const demo = () => JSON.parse(readFileSync(join(platform.dataDir, "demo.json"), "utf8")) as DemoFile;
  /** The platform's own `sandbox` provider, as configured by default. */
  const sandbox = () => platform.payments.providers.get("sandbox");
  const request = (amount: number) => ({
    amount,
    currency: "JPY",
    reference: `pi_${randomUUID()}`,
    mode: "mpm" as const,
  });

  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  it("writes the provider, its webhook secret and the demo merchant's credentials to demo.json", () => {
    const { provider, polling_provider } = demo();
    expect(provider).toMatchObject({ code: "sandbox", base_url: expect.stringMatching(/^http:\/\//) });
    expect(provider.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(provider.credentials).sort()).toEqual(["api_key", "api_secret", "merchant_id"]);
    expect(polling_provider.code).toBe("sandbox-poll");
    expect(polling_provider.credentials.api_key).not.toBe(provider.credentials.api_key);
  });

  it("is paid by `npm run provider -- pay`, found through DATA_DIR, and keeps it across a restart", async () => {
    const credentials = demo().provider.credentials;
    const qr = await sandbox().createQr(request(1800), credentials);
    const paid = await runProviderCli(platform.dataDir, ["pay", qr.provider_transaction_id]);
    expect(paid.output).toContain(qr.provider_transaction_id);
    expect(paid.code).toBe(0);
    expect((await sandbox().getPaymentStatus(qr.provider_transaction_id, credentials)).status).toBe("succeeded");

    await platform.stop();
    await platform.restart();
    const after = demo().provider;
    expect(after.credentials).toEqual(credentials);
    expect((await sandbox().getPaymentStatus(qr.provider_transaction_id, after.credentials)).status).toBe("succeeded");
  });

  it("is paid with what the customer scanned: the QR's content", async () => {
    const qr = await sandbox().createQr(request(2100), demo().provider.credentials);
    const paid = await runProviderCli(platform.dataDir, ["pay", qr.qr_content]);
    expect(paid.output).toContain(qr.provider_transaction_id);
    expect(paid.code).toBe(0);
    expect((await sandbox().getPaymentStatus(qr.provider_transaction_id, demo().provider.credentials)).status).toBe(
      "succeeded",
    );
  });

  it("tells the CLI user what went wrong", async () => {
    const run = async (args: string[], dataDir = platform.dataDir) => {
      const lines: string[] = [];
      const code = await runCliInProcess(args, { dataDir }, { out: (l) => lines.push(l), error: (l) => lines.push(l) });
      return { code, output: lines.join("\n") };
    };
    expect(await run(["pay", "txn_unknown"])).toMatchObject({ code: 1, output: expect.stringContaining("not_found") });
    expect(await run(["refund"])).toMatchObject({ code: 2, output: expect.stringContaining("usage") });
    expect(await run(["pay", "txn_x"], join(platform.dataDir, "elsewhere"))).toMatchObject({
      code: 1,
      output: expect.stringContaining("start the platform first"),
    });
  });
});
