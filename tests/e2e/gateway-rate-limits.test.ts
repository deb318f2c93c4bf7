import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisUrl } from "../support/environment";
import { call, signed } from "../support/gateway";
import { startTestPlatform, type TestPlatform } from "../support/platform";

// Low limits so a handful of requests reach them; a fresh window per run keeps counters from leaking between runs.
const limits = { ip: 3, merchant: 6, store: 4, global: 1000, windowSeconds: 3600 };

for (const counters of redisUrl ? ["memory", "redis"] : ["memory"]) {
  describe(`gateway rate limits (${counters} counters)`, () => {
    let platform: TestPlatform;
    beforeAll(async () => {
      platform = await startTestPlatform({
        rateLimits: limits,
        redisUrl: counters === "redis" ? redisUrl : undefined,
        redisKeyPrefix: `test-${randomUUID()}`,
      });
    });
    afterAll(() => platform?.close());

    it("limits unsigned callers per IP with headers on every answer and 429 with Retry-After", async () => {
      const answers = [];
      for (let i = 0; i < limits.ip + 1; i++) {
        answers.push(await call(platform.baseUrl, "GET", `/v1/payment_intents/pi_${randomUUID()}?payment_token=x`));
      }
      const remaining = answers.map((answer) => answer.headers.get("x-ratelimit-remaining"));
      expect(remaining).toEqual(["2", "1", "0", "0"]);
      for (const answer of answers) {
        expect(answer.headers.get("x-ratelimit-limit")).toBe(String(limits.ip));
        expect(Number(answer.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
      }
      const limited = answers.at(-1)!;
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe("rate_limit_exceeded");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    });

    it("counts signed calls per partner and per store, not per IP", async () => {
      const partner = await platform.partners.createPartner(`limited ${counters}`);
      const key = await platform.partners.issueApiKey(partner.id);
      const statuses = [];
      for (let i = 0; i < limits.merchant + 1; i++) {
        statuses.push((await signed(platform.baseUrl, key, "GET", "/v1/payment_intents")).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);

      // A partner of its own with one store: the demo partner's bucket also counts the portal's sync requests.
      const storePartner = await platform.partners.createPartner(`store-limited ${counters}`);
      const storeKey = await platform.partners.issueApiKey(storePartner.id);
      const store = { store_id: 2_000_000_000, store_code: "LIMITED" };
      const sync = { merchants: [{ merchant_id: 2_000_000_000, stores: [store] }] };
      expect((await signed(platform.baseUrl, storeKey, "POST", "/v1/sync/merchants", sync)).status).toBe(200);
      const stores = [];
      for (let i = 0; i < limits.store + 1; i++) {
        const query = `/v1/payment_intents?merchant_store_id=${store.store_code}`;
        const response = await signed(platform.baseUrl, storeKey, "GET", query);
        stores.push([response.status, response.headers.get("x-ratelimit-limit")]);
      }
      expect(stores.at(0)).toEqual([200, String(limits.store)]);
      expect(stores.at(-1)).toEqual([429, String(limits.store)]);
    });
  });
}
