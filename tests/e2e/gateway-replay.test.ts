import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisUrl } from "../support/environment";
import { signed } from "../support/gateway";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStorePartner, seed } from "../support/seed";

const now = () => Math.floor(Date.now() / 1000);

// Embedded, the payments database remembers the signatures; in the cluster suite, Redis does as well.
for (const store of redisUrl ? ["database", "redis"] : ["database"]) {
  describe(`replayed signed requests (${store})`, () => {
    let platform: TestPlatform;
    let partner: SeededStorePartner;
    beforeAll(async () => {
      platform = await startTestPlatform({
        redisUrl: store === "redis" ? redisUrl : undefined,
        redisKeyPrefix: `test-${randomUUID()}`,
        demo: false,
      });
      partner = await seed(platform).storePartner();
    });
    afterAll(() => platform?.close());

    const cashIntent = async () => {
      const created = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", {
        amount: 1000,
        currency: "JPY",
        payment_method_types: ["cash"],
        merchant_ref_id: `replay-${randomUUID()}`,
        merchant_store_id: partner.store_code,
      });
      expect(created.body.status).toBe("succeeded");
      return created.body.id as string;
    };
    const refunds = (payment_intent_id: string) =>
      platform.payments.prisma.refund.count({ where: { payment_intent_id } });

    it("refuses the same signed refund a second time with 401, and refunds once", async () => {
      const id = await cashIntent();
      const path = `/v1/payment_intents/${id}/refund`;
      const timestamp = now();
      const first = await signed(platform.baseUrl, partner, "POST", path, { amount: 100 }, { timestamp });
      const replay = await signed(platform.baseUrl, partner, "POST", path, { amount: 100 }, { timestamp });
      expect(first.status).toBe(201);
      expect(replay.status).toBe(401);
      expect(replay.body).toMatchObject({ code: "unauthorized", details: {} });
      expect(replay.headers.get("x-ratelimit-limit")).not.toBeNull();
      expect(await refunds(id)).toBe(1);
      // The same refund signed anew (another timestamp) is a new request.
      const resigned = await signed(
        platform.baseUrl,
        partner,
        "POST",
        path,
        { amount: 100 },
        {
          timestamp: timestamp - 1,
        },
      );
      expect(resigned.status).toBe(201);
      expect(await refunds(id)).toBe(2);
    });

    it("lets one of many concurrent copies through, under either scheme", async () => {
      for (const scheme of [1, 2] as const) {
        const id = await cashIntent();
        const path = `/v1/payment_intents/${id}/refund`;
        const timestamp = now();
        const answers = await Promise.all(
          Array.from({ length: 10 }, () =>
            signed(platform.baseUrl, partner, "POST", path, { amount: 10 }, { timestamp, scheme }),
          ),
        );
        expect(answers.map((answer) => answer.status).sort()).toEqual([201, ...Array(9).fill(401)]);
        expect(await refunds(id)).toBe(1);
      }
    });

    it("answers an exact replay with an Idempotency-Key with the stored response, and refunds once", async () => {
      const id = await cashIntent();
      const path = `/v1/payment_intents/${id}/refund`;
      const options = { timestamp: now(), headers: { "idempotency-key": `refund-${randomUUID()}` } };
      const first = await signed(platform.baseUrl, partner, "POST", path, { amount: 100 }, options);
      const replay = await signed(platform.baseUrl, partner, "POST", path, { amount: 100 }, options);
      expect(first.status).toBe(201);
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(await refunds(id)).toBe(1);
    });

    it("answers concurrent exact replays with a key by the key (stored answer or conflict), never 401", async () => {
      const id = await cashIntent();
      const path = `/v1/payment_intents/${id}/refund`;
      const options = { timestamp: now(), headers: { "idempotency-key": `refund-${randomUUID()}` } };
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => signed(platform.baseUrl, partner, "POST", path, { amount: 10 }, options)),
      );
      for (const answer of answers) {
        if (answer.status === 201) expect(answer.body.amount).toBe(10);
        else expect([answer.status, answer.body.code]).toEqual([409, "idempotency_conflict"]);
      }
      expect(answers.filter((answer) => answer.status === 201).length).toBeGreaterThan(0);
      expect(await refunds(id)).toBe(1);
    });

    it("refuses a replay without the key, or under another key, with 401: the key is bound to the signature", async () => {
      const id = await cashIntent();
      const path = `/v1/payment_intents/${id}/refund`;
      const timestamp = now();
      const first = await signed(
        platform.baseUrl,
        partner,
        "POST",
        path,
        { amount: 100 },
        {
          timestamp,
          headers: { "idempotency-key": `refund-${randomUUID()}` },
        },
      );
      expect(first.status).toBe(201);
      for (const headers of [{}, { "idempotency-key": `refund-${randomUUID()}` }] as Record<string, string>[]) {
        const replay = await signed(platform.baseUrl, partner, "POST", path, { amount: 100 }, { timestamp, headers });
        expect(replay.status).toBe(401);
        expect(replay.body).toMatchObject({ code: "unauthorized" });
      }
      expect(await refunds(id)).toBe(1);
    });

    it("refuses an exact replay with a key on a route that does not honour one (webhook settings) with 401", async () => {
      const options = { timestamp: now(), headers: { "idempotency-key": `webhook-${randomUUID()}` } };
      const first = await signed(platform.baseUrl, partner, "DELETE", "/v1/api_key/webhook", undefined, options);
      const replay = await signed(platform.baseUrl, partner, "DELETE", "/v1/api_key/webhook", undefined, options);
      expect(first.status).toBe(204);
      expect(replay.status).toBe(401);
      expect(replay.body).toMatchObject({ code: "unauthorized" });
    });

    it("answers an exact replay of a sync with an Idempotency-Key with the stored answer", async () => {
      const options = { timestamp: now(), headers: { "idempotency-key": `sync-${randomUUID()}` } };
      const first = await signed(platform.baseUrl, partner, "POST", "/v1/sync/merchants", { merchants: [] }, options);
      const replay = await signed(platform.baseUrl, partner, "POST", "/v1/sync/merchants", { merchants: [] }, options);
      expect(first).toMatchObject({ status: 200, body: { synced_merchants: 0, synced_stores: 0 } });
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      expect(replay).toMatchObject({ status: 200, body: first.body });
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
    });

    it("lets a signed GET be sent again: reads change nothing", async () => {
      const timestamp = now();
      for (let i = 0; i < 2; i++) {
        const list = await signed(platform.baseUrl, partner, "GET", "/v1/payment_intents?limit=1", undefined, {
          timestamp,
        });
        expect(list.status).toBe(200);
      }
    });
  });
}
