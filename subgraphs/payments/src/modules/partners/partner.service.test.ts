import { afterAll, beforeAll, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";
import { openTestPayments, seedPartner } from "../../testing";

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
    keys: [{ id: key.id, secret: key.secret, expires_at: key.expires_at, revoked: false }],
  });
  await expect(deps.partners.credentialsFor(caller, key.client_id)).rejects.toMatchObject({ code: "forbidden" });
  expect(await deps.partners.credentialsFor(edge, "cl_unknown")).toBeNull();
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
