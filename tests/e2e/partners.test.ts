import { spawn } from "node:child_process";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, vi } from "vitest";
import { repositoryRoot } from "../../subgraphs/common/src/repository-root";
import { type Credentials, signed } from "../support/gateway";
import { movableClock } from "../support/payments";
import {
  getJson,
  inProcessOnly,
  logIn,
  postGraphQL,
  postJson,
  startTestPlatform,
  type TestPlatform,
} from "../support/platform";
import { type SeededStore, seed } from "../support/seed";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

// In-process only: every test here moves the platform's clock forward (it is never moved back: cached keys would
// then outlive their time), so the tests run in the order written, on one platform.
const clock = movableClock();
const DAY_MS = 24 * 60 * 60 * 1000;
let platform: TestPlatform;
/** Where the PSP admin who is refused works. */
let store: SeededStore;
let receiver: WebhookReceiver;
let operator: string;
beforeAll(async () => {
  platform = await startTestPlatform({
    clock,
    partnerWebhooks: { allowPrivateUrls: true, retryDelaysMs: [100] },
    demo: false,
  });
  store = await seed(platform).store();
  receiver = await startWebhookReceiver();
  operator = (await logIn(platform.baseUrl, await seed(platform).user("SYSTEM_OP", store), clock())).access_token;
});
afterAll(async () => {
  await receiver?.close();
  await platform?.close();
});

const send = async (method: string, path: string, token: string) => {
  const response = await fetch(`${platform.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as any };
};
const newPartner = async (name: string) =>
  (await postJson(platform.baseUrl, "/api/v1/partners", { name }, operator)).body;
const issue = async (partnerId: number) =>
  postJson(platform.baseUrl, `/api/v1/partners/${partnerId}/api-keys`, {}, operator);
const listIntents = (key: Credentials) => signed(platform.baseUrl, key, "GET", "/v1/payment_intents");

describe("partner onboarding", () => {
  inProcessOnly("L0 creates a partner and issues a key whose secret is shown once and signs at once", async () => {
    const created = await postJson(platform.baseUrl, "/api/v1/partners", { name: "Acme POS" }, operator);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Acme POS", psp_id: null, status: "active" });
    const id = created.body.id;
    expect((await getJson(platform.baseUrl, `/api/v1/partners/${id}`, operator)).body).toEqual(created.body);
    const list = await getJson(platform.baseUrl, "/api/v1/partners?limit=100", operator);
    expect(list.body).toContainEqual(created.body);
    expect(Number(list.headers.get("x-total-count"))).toBeGreaterThanOrEqual(1);

    const key = await issue(id);
    expect(key.status).toBe(201);
    expect(key.body).toMatchObject({ client_partner_id: id, client_id: expect.stringMatching(/^cl_/) });
    expect(key.body.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(new Date(key.body.expires_at).getTime() - new Date(key.body.created_at).getTime()).toBe(180 * DAY_MS);
    expect((await listIntents(key.body)).status).toBe(200);

    const keys = await getJson(platform.baseUrl, `/api/v1/partners/${id}/api-keys`, operator);
    expect(keys.status).toBe(200);
    expect(keys.body).toEqual([
      expect.objectContaining({ id: key.body.id, client_id: key.body.client_id, status: "active" }),
    ]);
    expect(Object.keys(keys.body[0]).sort()).toEqual([
      "client_id",
      "client_partner_id",
      "created_at",
      "expires_at",
      "id",
      "last_used_at",
      "permissions",
      "revoked_at",
      "status",
      "store_ids",
    ]);
    expect(JSON.stringify(keys.body)).not.toContain(key.body.secret);
    expect(keys.body[0].last_used_at).not.toBeNull();
  });

  inProcessOnly("refuses a sixth active client_id with 409 naming the limit, and bad input with 400", async () => {
    const { id } = await newPartner("Five-key POS");
    for (let issued = 0; issued < 5; issued++) expect((await issue(id)).status).toBe(201);
    const sixth = await issue(id);
    expect(sixth.status).toBe(409);
    expect(sixth.body).toMatchObject({ code: "conflict", details: { field: "api_keys", constraint: "max_active_5" } });
    expect((await getJson(platform.baseUrl, `/api/v1/partners/${id}/api-keys`, operator)).body).toHaveLength(5);
    const nameless = await postJson(platform.baseUrl, "/api/v1/partners", { name: "" }, operator);
    expect(nameless.status).toBe(400);
    expect(nameless.body).toMatchObject({ code: "invalid_request", details: { field: "name" } });
  });

  inProcessOnly("lets only L0 manage partners: everyone else gets 403", async () => {
    const { id } = await newPartner("Guarded POS");
    const admin = (await logIn(platform.baseUrl, await seed(platform).user("PSP_ADMIN", store), clock())).access_token;
    expect((await postJson(platform.baseUrl, "/api/v1/partners", { name: "x" }, admin)).status).toBe(403);
    expect((await getJson(platform.baseUrl, "/api/v1/partners", admin)).status).toBe(403);
    expect(
      (await issue(id).then(() => postJson(platform.baseUrl, `/api/v1/partners/${id}/api-keys`, {}, admin))).status,
    ).toBe(403);
    const graphql = await postGraphQL(platform.baseUrl, "{ expiringApiKeys { id } }", {}, admin);
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
  });

  inProcessOnly("answers a revoked key's signature with 401 api_key_revoked", async () => {
    const { id } = await newPartner("Revoked POS");
    const key = (await issue(id)).body;
    const revoked = await send("DELETE", `/api/v1/partners/${id}/api-keys/${key.id}`, operator);
    expect(revoked).toMatchObject({ status: 200, body: { id: key.id, status: "revoked" } });
    const refused = await listIntents(key);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("api_key_revoked");
  });

  inProcessOnly(
    "lists a key for L0 and sends api_key.expiring once at the 30-day mark, counted in the gauge",
    async () => {
      const { id } = await newPartner("Expiring POS");
      const key = (await issue(id)).body;
      const webhook_url = `${receiver.url}?expiring=1`;
      expect((await signed(platform.baseUrl, key, "PUT", "/v1/api_key/webhook", { webhook_url })).status).toBe(200);
      const listed = await postGraphQL(platform.baseUrl, "{ expiringApiKeys(days: 181) { id status } }", {}, operator);
      expect(listed.body.data.expiringApiKeys).toContainEqual({ id: key.id, status: "active" });
      const seen = receiver.received.length;

      clock.advance(new Date(key.expires_at).getTime() - 30 * DAY_MS + 60_000 - clock().getTime());
      const isNotice = (body: string) => JSON.parse(body).data?.id === key.id;
      let request = await receiver.next();
      while (receiver.received.indexOf(request) < seen || !isNotice(request.body)) request = await receiver.next();
      // The delivery is stamped with the platform's (moved) time; the library checks it against its own now.
      vi.useFakeTimers({ toFake: ["Date"], now: clock() });
      const event = new Webhook(key.webhook_secret).verify(request.body, request.headers as never) as any;
      vi.useRealTimers();
      expect(event).toMatchObject({
        type: "api_key.expiring",
        data: { id: key.id, client_id: key.client_id, expires_at: key.expires_at, days_before_expiry: 30 },
      });
      await platform.payments.apiKeyExpiry.sweep();
      const notices = await platform.payments.prisma.outboxEvent.count({
        where: { event_type: "api_key.expiring", aggregate_id: key.id },
      });
      expect(notices).toBe(1);

      const metrics = await (await fetch(`${platform.adminUrl}/metrics`)).text();
      expect(Number(/^pgw_api_keys_expiring (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    },
  );

  inProcessOnly("rotates over HMAC: the new key works, the old one for 7 days, then 401 api_key_expired", async () => {
    // Set up through the services: the operator's token is past its 15 minutes on the moved clock.
    const { id } = await platform.partners.createPartner("Rotating POS");
    const old = await platform.partners.issueApiKey(id);
    const webhook_url = `${receiver.url}?rotating=1`;
    expect((await signed(platform.baseUrl, old, "PUT", "/v1/api_key/webhook", { webhook_url })).status).toBe(200);
    const rotated = await signed(platform.baseUrl, old, "POST", "/v1/api_key/rotate");
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ client_id: old.client_id, webhook_secret: old.webhook_secret });
    expect(rotated.body.secret).not.toBe(old.secret);
    const next = { client_id: rotated.body.client_id, secret: rotated.body.secret };
    expect((await listIntents(next)).status).toBe(200);
    expect((await signed(platform.baseUrl, next, "GET", "/v1/api_key/webhook")).body.webhook_url).toBe(webhook_url);
    expect((await listIntents(old)).status).toBe(200);

    clock.advance(7 * DAY_MS + 60_000);
    const expired = await listIntents(old);
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe("api_key_expired");
    expect((await listIntents(next)).status).toBe(200);
    const keys = await platform.payments.partnerAdmin.keys({ type: "service", id: "test", scopes: [] }, id);
    expect(keys.map((key) => key.status)).toEqual(["active", "expired"]);
  });

  inProcessOnly("does the same from a shell: npm run partner", { timeout: 120_000 }, async () => {
    await platform.stop();
    const run = (...args: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: platform.dataDir };
        for (const [name, url] of Object.entries(platform.config.databaseUrls ?? {})) {
          if (url) env[`DATABASE_URL_${name.toUpperCase()}`] = url;
        }
        const child = spawn("npm", ["run", "--silent", "partner", "--", ...args], { cwd: repositoryRoot, env });
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk;
        });
        child.once("exit", (code) => resolve({ code, out }));
      });
    const created = await run("create", "Shell POS");
    expect(created.code).toBe(0);
    const partner = JSON.parse(created.out);
    expect(partner).toMatchObject({ name: "Shell POS", status: "active" });
    // Each run loads the platform's code afresh: one run per command, the restricted issue standing for both kinds.
    const key = JSON.parse((await run("issue", String(partner.id), "payment_intents:read,refunds:write", "4")).out);
    expect(key.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(key).toMatchObject({ permissions: ["payment_intents:read", "refunds:write"], store_ids: [4] });
    const keys = JSON.parse((await run("keys", String(partner.id))).out);
    expect(keys).toEqual([expect.objectContaining({ id: key.id, status: "active" })]);
    expect(JSON.parse((await run("revoke", String(partner.id), key.id)).out)).toMatchObject({ status: "revoked" });
    expect(JSON.parse((await run("list")).out)).toContainEqual(expect.objectContaining({ id: partner.id }));
  });
});
