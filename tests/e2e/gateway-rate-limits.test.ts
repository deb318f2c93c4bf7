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
      await platform.payments.merchantSync.grant(storePartner.id, sync);
      const stores = [];
      for (let i = 0; i < limits.store + 1; i++) {
        const query = `/v1/payment_intents?merchant_store_id=${store.store_code}`;
        const response = await signed(platform.baseUrl, storeKey, "GET", query);
        stores.push([response.status, response.headers.get("x-ratelimit-limit")]);
      }
      expect(stores.at(0)).toEqual([200, String(limits.store)]);
      expect(stores.at(-1)).toEqual([429, String(limits.store)]);
    });

    it("counts per merchant and per store, not per partner, when a partner serves several merchants", async () => {
      const partner = await platform.partners.createPartner(`pos partner ${counters}`);
      const key = await platform.partners.issueApiKey(partner.id);
      const [a1, a2, b1] = [
        { store_id: 2_000_000_101, store_code: "A1" },
        { store_id: 2_000_000_102, store_code: "A2" },
        { store_id: 2_000_000_201, store_code: "B1" },
      ];
      const sync = {
        merchants: [
          { merchant_id: 2_000_000_100, stores: [a1, a2] },
          { merchant_id: 2_000_000_200, stores: [b1] },
        ],
      };
      // Granted as by an operator: only the platform's own sync partner creates merchant and store ids by syncing.
      await platform.payments.merchantSync.grant(partner.id, sync);
      const list = async (store?: string | number) => {
        const query = store === undefined ? "" : `?merchant_store_id=${store}`;
        return (await signed(platform.baseUrl, key, "GET", `/v1/payment_intents${query}`)).status;
      };
      const times = async (n: number, store?: string | number) => {
        const statuses = [];
        for (let i = 0; i < n; i++) statuses.push(await list(store));
        return statuses;
      };
      // A store is one bucket whether it is named by code or by id.
      expect(await times(limits.store, a1.store_code)).toEqual([200, 200, 200, 200]);
      expect(await list(a1.store_id)).toBe(429);
      // Its merchant has counted those five; its other store has budget left, the merchant one more request.
      expect(await times(2, a2.store_code)).toEqual([200, 429]);
      // The partner's other merchant has a budget of its own.
      expect(await times(3, b1.store_code)).toEqual([200, 200, 200]);
      // A request that names no store counts against the partner's own bucket, under the per-merchant limit.
      expect(await times(limits.merchant + 1)).toEqual([200, 200, 200, 200, 200, 200, 429]);
      expect(await list(b1.store_id)).toBe(200);
    });
  });
}
