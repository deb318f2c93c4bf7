import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisUrl } from "../support/environment";
import { call, signed } from "../support/gateway";
import { grantMerchant } from "../support/payments";
import { startTestPlatform, type TestPlatform } from "../support/platform";

// Low limits so a handful of requests reach them; a fresh window per run keeps counters from leaking between runs.
const limits = { ip: 3, merchant: 6, store: 4, global: 1000, windowSeconds: 3600 };

for (const counters of redisUrl ? ["memory", "redis"] : ["memory"]) {
  describe(`gateway rate limits (${counters} counters)`, () => {
    let platform: TestPlatform;
    beforeAll(async () => {
      // No demo tenant: the portal's sync of its merchants is signed traffic from this same IP, and a sync the gateway
      // refuses (two in one second, say) would spend the per-IP budget this file counts.
      platform = await startTestPlatform({
        demo: false,
        rateLimits: limits,
        redisUrl: counters === "redis" ? redisUrl : undefined,
        redisKeyPrefix: `test-${randomUUID()}`,
      });
    });
    afterAll(() => platform?.close());

    /**
     * A partner of its own serving merchant A (stores A1, A2) and merchant B (store B1), with ids from `base` up;
     * granted as by an operator: only the platform's own sync partner creates merchant and store ids by syncing.
     */
    async function twoMerchantPartner(name: string, base: number, prefix = "") {
      const partner = await platform.partners.createPartner(`${name} ${counters}`);
      const key = await platform.partners.issueApiKey(partner.id);
      const [a1, a2, b1] = [
        { store_id: base + 101, store_code: `${prefix}A1` },
        { store_id: base + 102, store_code: `${prefix}A2` },
        { store_id: base + 201, store_code: `${prefix}B1` },
      ];
      await grantMerchant(platform.payments, partner.id, { merchant_id: base + 100, stores: [a1, a2] });
      await grantMerchant(platform.payments, partner.id, { merchant_id: base + 200, stores: [b1] });
      return { key, a1, a2, b1 };
    }

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

      // A partner of its own, granted one store: no other test's requests count in that store's bucket.
      const storePartner = await platform.partners.createPartner(`store-limited ${counters}`);
      const storeKey = await platform.partners.issueApiKey(storePartner.id);
      const store = { store_id: 2_000_000_000, store_code: "LIMITED" };
      const sync = { merchants: [{ merchant_id: 2_000_000_000, stores: [store] }] };
      await grantMerchant(platform.payments, storePartner.id, sync.merchants[0]!);
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
      const { key, a1, a2, b1 } = await twoMerchantPartner("pos partner", 2_000_000_000);
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

    it("counts captures and ledger reads against the intent's merchant and store: one merchant's burst spares another's", async () => {
      const { key, a1, a2, b1 } = await twoMerchantPartner("card partner", 2_000_000_200, "C");
      const cardIntent = async (store: { store_code: string }) => {
        const body = {
          amount: 1500,
          currency: "JPY",
          payment_method_types: ["credit_card"],
          merchant_ref_id: `order-${randomUUID()}`,
          merchant_store_id: store.store_code,
        };
        const created = await signed(platform.baseUrl, key, "POST", "/v1/payment_intents", body);
        expect(created.status).toBe(201);
        return created.body.id as string;
      };
      // Bodies that differ in spacing only: a retry signed in the same second is not a replay of the first.
      const capture = async (id: string, attempt = 0) =>
        (await signed(platform.baseUrl, key, "POST", `/v1/payment_intents/${id}/capture`, `{${" ".repeat(attempt)}}`))
          .status;
      // Merchant A spends its 6 on three intents and their captures, spread over its stores (4 a store at most).
      const ofA = [await cardIntent(a1), await cardIntent(a1), await cardIntent(a2)];
      const ofB = [await cardIntent(b1), await cardIntent(b1)];
      const burst = [];
      for (const id of ofA) burst.push(await capture(id));
      for (let attempt = 1; attempt <= 3; attempt++) burst.push(await capture(ofA[0]!, attempt));
      expect(burst).toEqual([200, 200, 200, 429, 429, 429]);
      // A read of one of merchant A's ledger rows is merchant A's call too.
      const row = await platform.payments.prisma.ledgerTransaction.findFirstOrThrow({
        where: { payment_intent_id: ofA[0] },
      });
      expect((await signed(platform.baseUrl, key, "GET", `/v1/transactions/${row.id}`)).status).toBe(429);
      // An id no intent of the partner has counts against the partner's own bucket: answered, and limited there.
      const unknown = [];
      for (let i = 0; i <= limits.merchant; i++) unknown.push(await capture(`pi_unknown_${randomUUID()}`));
      expect(unknown).toEqual([...Array(limits.merchant).fill(404), 429]);
      // Merchant B's captures have their own budget through it all.
      for (const id of ofB) expect(await capture(id)).toBe(200);
    });
  });
}
