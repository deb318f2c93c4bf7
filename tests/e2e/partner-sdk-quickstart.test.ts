import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quickstart } from "../../sdks/partner/examples/quickstart";
import { readDemo, startTestPlatform, type TestPlatform } from "../support/platform";

let platform: TestPlatform;
beforeAll(async () => {
  // As `npm start` has it (WEBHOOK_ALLOW_PRIVATE_URLS defaults to true there): the quickstart's endpoint is local.
  platform = await startTestPlatform({ partnerWebhooks: { allowPrivateUrls: true } });
});
afterAll(() => platform?.close());

const sdk = (file: string) => readFileSync(join(repositoryRoot, "sdks", "partner", file), "utf8");

describe("the partner SDK's quickstart", () => {
  it("is in the README as it is run here", () => {
    expect(sdk("README.md")).toContain(`\`\`\`ts\n${sdk("examples/quickstart.ts")}\`\`\``);
  });

  it("creates and captures an intent, lists it among the succeeded ones and verifies its webhook", async () => {
    const { intent, succeeded, event } = await quickstart(readDemo(platform.dataDir));
    expect(intent.status).toBe("requires_action");
    expect(succeeded).toContain(intent.id);
    expect(event).toMatchObject({ type: "payment_intent.succeeded", data: { id: intent.id, amount: 1200 } });
  });
});
