import { statSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "@pos-cloud/test-support/environment";
import { describe, expect, it } from "vitest";
import { readSandboxSettings, startEmbeddedSandbox } from "./embedded";

describe("the embedded sandbox", () => {
  const dir = temporaryDirectory();

  it("keeps its credentials and its port across restarts, and moves to a free port when that one is taken", async () => {
    const options = { dataDir: dir.path, host: "127.0.0.1", processingDelayMs: 0 };
    const first = await startEmbeddedSandbox(options);
    expect(readSandboxSettings(dir.path)?.baseUrl).toBe(first.baseUrl);
    expect(statSync(join(dir.path, "sandbox-provider", "config.json")).mode & 0o777).toBe(0o600);
    expect(first.accounts.webhook.delivery).toBe("webhook");
    expect(first.accounts.polling.delivery).toBe("polling");

    const beside = await startEmbeddedSandbox(options);
    expect(beside.port).not.toBe(first.port);
    expect(beside.accounts).toEqual(first.accounts);
    await beside.close();
    await first.close();

    const again = await startEmbeddedSandbox(options);
    try {
      expect(again.port).toBe(beside.port);
      expect(again.webhookSecret).toBe(first.webhookSecret);
      expect(again.accounts).toEqual(first.accounts);
      expect(readSandboxSettings(dir.path)?.baseUrl).toBe(again.baseUrl);
    } finally {
      await again.close();
      dir.remove();
    }
  });
});
