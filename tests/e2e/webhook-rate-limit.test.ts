import { afterAll, beforeAll, expect, it } from "vitest";
import { withinOneRateWindow } from "../support/gateway";
import { startTestPlatform, type TestPlatform } from "../support/platform";

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ demo: false, rateLimits: { ip: 3 } });
});
afterAll(() => platform?.close());

it("counts provider webhooks per IP before their signature is checked", async () => {
  const statuses: number[] = [];
  await withinOneRateWindow();
  for (let i = 0; i < 4; i++) {
    const response = await fetch(`${platform.baseUrl}/v1/webhooks/sandbox`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-sandbox-signature": "00".repeat(32) },
      body: JSON.stringify({ event_id: `e${i}` }),
    });
    statuses.push(response.status);
    if (response.status === 429) expect(((await response.json()) as { code: string }).code).toBe("rate_limit_exceeded");
  }
  expect(statuses).toEqual([401, 401, 401, 429]);
});
