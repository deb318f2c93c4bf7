import { openTestPayments, seedPartner } from "@pos-cloud/test-support/payments";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";

let deps: PaymentsDeps;
beforeAll(async () => {
  deps = await openTestPayments();
});
afterAll(() => deps?.close());

const edge = { type: "service" as const, id: "edge", scopes: [] };

it("keeps secrets sealed and gives them to the edge alone", async () => {
  const { partner, key, caller } = await seedPartner(deps);
  const rows = await deps.prisma.apiKey.findMany({ where: { client_id: key.client_id } });
  expect(JSON.stringify(rows)).not.toContain(key.secret);
  expect(JSON.stringify(rows)).not.toContain(key.webhook_secret);
  expect(await deps.partners.credentialsFor(edge, key.client_id)).toEqual({
    client_partner_id: partner.id,
    keys: [
      { id: key.id, secret: key.secret, expires_at: key.expires_at, revoked: false, permissions: [], store_ids: [] },
    ],
  });
  await expect(deps.partners.credentialsFor(caller, key.client_id)).rejects.toMatchObject({ code: "forbidden" });
  expect(await deps.partners.credentialsFor(edge, "cl_unknown")).toBeNull();
});

it("keeps a client_id's restriction through a renewal and a rotation, unless the renewal names another", async () => {
  const { partner } = await seedPartner(deps);
  const restriction = { permissions: ["payment_intents:read"], store_ids: [42] };
  const key = await deps.partners.issueApiKey(partner.id, { restriction });
  const renewed = await deps.partners.renewApiKey(partner.id, key.client_id);
  expect(renewed).toMatchObject(restriction);
  const signer = { type: "partner" as const, id: String(partner.id), scopes: [], apiKeyId: renewed.id };
  await deps.partners.revokeApiKey(partner.id, key.id);
  expect(await deps.partners.rotateApiKey(partner.id, key.client_id, signer)).toMatchObject(restriction);
  const other = await deps.partners.issueApiKey(partner.id);
  const narrowed = { permissions: ["sync:write"], store_ids: [] };
  expect(await deps.partners.renewApiKey(partner.id, other.client_id, narrowed)).toMatchObject(narrowed);
  const keys = (await deps.partners.credentialsFor(edge, key.client_id))?.keys;
  expect(keys?.map(({ permissions, store_ids }) => ({ permissions, store_ids }))).toEqual([
    restriction,
    restriction,
    restriction,
  ]);
});

it("allows two active secrets per partner while rotating, not three", async () => {
  const { partner, key } = await seedPartner(deps);
  const second = await deps.partners.issueApiKey(partner.id, { client_id: key.client_id });
  const secrets = async () =>
    (await deps.partners.credentialsFor(edge, key.client_id))?.keys
      .filter((each) => !each.revoked)
      .map((each) => each.secret);
  expect((await secrets())?.sort()).toEqual([key.secret, second.secret].sort());
  await expect(deps.partners.issueApiKey(partner.id, { client_id: key.client_id })).rejects.toMatchObject({
    code: "conflict",
  });
  await deps.partners.revokeApiKey(partner.id, key.id);
  expect(await secrets()).toEqual([second.secret]);
});

it("counts the limits per client_id: a partner renews any of its five client_ids, but gets no sixth", async () => {
  const { partner, key } = await seedPartner(deps);
  const other = await deps.partners.issueApiKey(partner.id);
  for (let more = 0; more < 3; more++) await deps.partners.issueApiKey(partner.id);
  const renewed = await deps.partners.renewApiKey(partner.id, other.client_id);
  expect(renewed.client_id).toBe(other.client_id);
  // A renewal leaves the current secret its expiry (a rotation would cut it to 7 days).
  expect((await deps.partners.credentialsFor(edge, other.client_id))?.keys.map((each) => each.expires_at)).toEqual([
    renewed.expires_at,
    other.expires_at,
  ]);
  await expect(deps.partners.renewApiKey(partner.id, other.client_id)).rejects.toMatchObject({
    code: "conflict",
    details: { constraint: "max_secrets_2" },
  });
  await expect(deps.partners.issueApiKey(partner.id)).rejects.toMatchObject({
    code: "conflict",
    details: { constraint: "max_active_5" },
  });
  expect((await deps.partners.credentialsFor(edge, key.client_id))?.keys).toHaveLength(1);
});

it("lets a partner manage a client_id with its newest key only, even once that key is revoked", async () => {
  const { partner, key, caller } = await seedPartner(deps);
  await expect(deps.partners.requireNewestKey(caller, key.client_id)).resolves.toBeUndefined();
  const next = await deps.partners.rotateApiKey(partner.id, key.client_id, caller);
  const refused = { code: "forbidden", details: { constraint: "newest_api_key" } };
  await expect(deps.partners.requireNewestKey(caller, key.client_id)).rejects.toMatchObject(refused);
  await deps.partners.revokeApiKey(partner.id, next.id);
  await expect(deps.partners.rotateApiKey(partner.id, key.client_id, caller)).rejects.toMatchObject(refused);
  // Operators and the platform are not partners: the rule is the signing partner's.
  await expect(deps.partners.requireNewestKey(edge, key.client_id)).resolves.toBeUndefined();
});

it("keeps a client_id's webhook when its HMAC secret rotates, and posts once per client_id", async () => {
  const { partner, key } = await seedPartner(deps);
  await deps.partners.setWebhookUrl(key.client_id, "https://partner.example.com/hooks");
  const second = await deps.partners.issueApiKey(partner.id, { client_id: key.client_id });
  expect(second.webhook_secret).toBe(key.webhook_secret);
  expect(await deps.partners.webhookTargets(partner.id)).toEqual([
    {
      client_partner_id: partner.id,
      client_id: key.client_id,
      webhook_url: "https://partner.example.com/hooks",
      secrets: [key.webhook_secret],
    },
  ]);
  await deps.partners.revokeApiKey(partner.id, key.id);
  expect((await deps.partners.webhookTarget(key.client_id))?.webhook_url).toBe("https://partner.example.com/hooks");
});
