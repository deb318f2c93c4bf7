import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterWiring } from "../support/environment";
import { startRateWindow } from "../support/gateway";
import { movableClock } from "../support/payments";
import { startTestPlatform, type TestPlatform } from "../support/platform";

// In-process only: the rate-limit window is the platform's clock, which the test moves.
describe.skipIf(clusterWiring)("provider webhooks under the per-IP limit", () => {
  const clock = movableClock();
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false, clock, rateLimits: { ip: 3 } });
  });
  afterAll(() => platform?.close());

  it("counts provider webhooks per IP before their signature is checked", async () => {
    const send = (i: number) =>
      fetch(`${platform.baseUrl}/v1/webhooks/sandbox`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-sandbox-signature": "00".repeat(32) },
        body: JSON.stringify({ event_id: `e${i}` }),
      });
    const statuses: number[] = [];
    startRateWindow(clock);
    for (let i = 0; i < 4; i++) {
      const response = await send(i);
      statuses.push(response.status);
      if (response.status === 429)
        expect(((await response.json()) as { code: string }).code).toBe("rate_limit_exceeded");
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    // The next window of the platform's clock has its count anew.
    startRateWindow(clock);
    expect((await send(4)).status).toBe(401);
  });
});
