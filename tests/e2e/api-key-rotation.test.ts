import type { Caller } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Credentials, readDemo, signed } from "../support/gateway";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededPartner, seed } from "../support/seed";

// Issue 32, as the outside probe did it: every call HMAC-signed over REST, the operator's revocation through the
// partner service (what `npm run partner revoke` and the console call).
const service: Caller = { type: "service", id: "test", scopes: [] };
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

const rotatedOut = { code: "forbidden", details: { field: "authorization", constraint: "newest_api_key" } };

/** A partner serving a store of its own, its first key (A) and the key that rotating A gave (B). */
async function rotatedPartner() {
  const a: SeededPartner = await seed(platform).partner();
  const webhook_url = "https://partner.example.com/hooks/a";
  expect((await signed(platform.baseUrl, a, "PUT", "/v1/api_key/webhook", { webhook_url })).status).toBe(200);
  const rotated = await signed(platform.baseUrl, a, "POST", "/v1/api_key/rotate");
  expect(rotated.status).toBe(201);
  const b: Credentials & { id: string } = rotated.body;
  const partnerId = (await platform.partners.credentialsFor(service, a.client_id))!.client_partner_id;
  return { a, b, webhook_url, partnerId };
}

const createIntent = (key: Credentials, store_code: string) =>
  signed(platform.baseUrl, key, "POST", "/v1/payment_intents", {
    amount: 100,
    currency: "JPY",
    payment_method_types: ["qr_mpm"],
    merchant_ref_id: `rotation-${Date.now()}-${Math.random()}`,
    merchant_store_id: store_code,
  });

describe("the demo partner", () => {
  it("rotates demo.json's key like any other key; it is the demo's own partner's, not the sync partner's", async () => {
    const demo = readDemo(platform.dataDir);
    expect(demo.partner.about).toContain("not a key of the platform's sync partner");
    const own = await platform.payments.prisma.clientPartner.findUniqueOrThrow({
      where: { id: demo.partner.client_partner_id },
    });
    expect(own).toMatchObject({ name: "Demo partner", psp_id: demo.psp.id, is_sync_partner: false });
    const rotated = await signed(platform.baseUrl, demo.partner, "POST", "/v1/api_key/rotate");
    expect(rotated.status).toBe(201);
    expect(rotated.body.client_id).toBe(demo.partner.client_id);
    const next = { client_id: rotated.body.client_id, secret: rotated.body.secret };
    expect((await signed(platform.baseUrl, next, "GET", "/v1/payment_intents?limit=1")).status).toBe(200);
  });
});

describe("a rotated-out key (A, after A rotated to B)", () => {
  it("still signs payments in its grace period", async () => {
    const { a, b } = await rotatedPartner();
    expect((await createIntent(a, a.store_code)).status).toBe(201);
    expect((await signed(platform.baseUrl, a, "GET", "/v1/payment_intents?limit=1")).status).toBe(200);
    expect((await createIntent(b, a.store_code)).status).toBe(201);
  });

  it("cannot repoint, remove or re-key the webhook, and changes nothing trying", async () => {
    const { a, b, webhook_url } = await rotatedPartner();
    const before = await signed(platform.baseUrl, b, "GET", "/v1/api_key/webhook");
    expect(before.body.webhook_url).toBe(webhook_url);
    const attempts = [
      signed(platform.baseUrl, a, "PUT", "/v1/api_key/webhook", { webhook_url: "https://attacker.example.net/x" }),
      signed(platform.baseUrl, a, "DELETE", "/v1/api_key/webhook"),
      signed(platform.baseUrl, a, "POST", "/v1/api_key/webhook/secret"),
      signed(platform.baseUrl, a, "GET", "/v1/api_key/webhook"),
    ];
    for (const refused of await Promise.all(attempts)) {
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject(rotatedOut);
    }
    const webhook = await platform.partners.webhookTarget(a.client_id);
    expect(webhook?.webhook_url).toBe(webhook_url);
    expect(webhook?.secrets).toHaveLength(1);
    const moved = await signed(platform.baseUrl, b, "PUT", "/v1/api_key/webhook", {
      webhook_url: "https://partner.example.com/hooks/b",
    });
    expect(moved.status).toBe(200);
  });

  it("cannot rotate again, and after the operator revokes B it still mints no successor", async () => {
    const { a, b, partnerId } = await rotatedPartner();
    // A second later: the same bytes in the same second would be refused as a replay, not judged.
    const later = { timestamp: Math.floor(Date.now() / 1000) + 1 };
    const again = await signed(platform.baseUrl, a, "POST", "/v1/api_key/rotate", undefined, later);
    expect(again.status).toBe(403);
    expect(again.body).toMatchObject(rotatedOut);

    await platform.partners.revokeApiKey(partnerId, b.id);
    const minted = await signed(platform.baseUrl, a, "POST", "/v1/api_key/rotate", undefined, {
      timestamp: later.timestamp + 1,
    });
    expect(minted.status).toBe(403);
    expect(minted.body).toMatchObject(rotatedOut);
    const keys = await platform.payments.partnerAdmin.keys(service, partnerId);
    expect(keys.map((key) => key.status)).toEqual(["revoked", "active"]);
    // Its grace period is the only thing it keeps: 7 days at most from the rotation.
    expect(new Date(keys[1]!.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(7 * 24 * 3600 * 1000);
  });
});
