import { randomUUID } from "node:crypto";
import type { Caller } from "@pos-cloud/common";
import { openPortal } from "@pos-cloud/portal";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOrCreateMasterKey } from "../../apps/platform/src/master-key";
import { PORTAL_SYNC_CLIENT_ID } from "../../apps/platform/src/sync-partner";
import { uniqueCode } from "../support/environment";
import { type Credentials, call, type Demo, type GatewayResponse, signed } from "../support/gateway";
import { demoUser, logIn, readDemo, startTestPlatform, type TestPlatform } from "../support/platform";
import { seedBranch } from "../support/portal-seed";

const edge: Caller = { type: "service", id: "test", scopes: [] };

/** Repeats `attempt` until its answer satisfies `done` (bounded) and returns the last answer: the sync is asynchronous. */
async function eventually(
  attempt: () => Promise<GatewayResponse>,
  done: (answer: GatewayResponse) => boolean,
): Promise<GatewayResponse> {
  let answer = await attempt();
  for (let i = 0; i < 400 && !done(answer); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    answer = await attempt();
  }
  return answer;
}

const createIntent = (baseUrl: string, partner: Credentials, storeCode: string) =>
  signed(baseUrl, partner, "POST", "/v1/payment_intents", {
    amount: 1500,
    currency: "JPY",
    payment_method_types: ["qr_mpm"],
    merchant_ref_id: `order-${randomUUID()}`,
    merchant_store_id: storeCode,
  });

describe("a store created in the portal", () => {
  let platform: TestPlatform;
  let demo: Demo;
  let token: string;
  beforeAll(async () => {
    platform = await startTestPlatform({ paymentsPollIntervalMs: 60_000 });
    demo = readDemo(platform.dataDir);
    token = (await logIn(platform.baseUrl, demoUser(demo, "MERCHANT_ADMIN"))).access_token;
  });
  afterAll(() => platform?.close());

  const rest = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  /** A new store of the demo merchant with the sandbox's credentials, by the merchant admin over REST. */
  const newStore = async () => {
    const created = await rest("POST", "/api/v1/stores", {
      merchant_id: demo.merchant.id,
      code: uniqueCode("S"),
      name: "Portal store",
      provider_credentials: { sandbox: demo.provider.credentials },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ has_provider_credentials: true, status: "active" });
    return created.body as { id: number; code: string };
  };
  const intentFor = (store: { code: string }) =>
    eventually(
      () => createIntent(platform.baseUrl, demo.partner, store.code),
      (answer) => answer.status === 201,
    );

  it("takes a QR payment through the demo partner once the portal has synced it", async () => {
    const store = await newStore();
    const created = await intentFor(store);
    expect(created.status).toBe(201);
    const confirmed = await call(platform.baseUrl, "POST", `/v1/payment_intents/${created.body.id}/confirm`, {
      payment_token: created.body.payment_token.token,
      payment_method_type: "qr_mpm",
      provider: "sandbox",
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ payment_id: created.body.id, provider: "sandbox" });
    const transactionId = new URL(confirmed.body.qr_content).pathname.split("/").at(-1);
    const paid = await fetch(`${demo.provider.base_url}/sandbox/transactions/${transactionId}/pay`, { method: "POST" });
    expect(paid.status).toBe(200);
    const listed = await eventually(
      () =>
        signed(
          platform.baseUrl,
          demo.partner,
          "GET",
          `/v1/payment_intents?merchant_store_id=${store.code}&status=succeeded`,
        ),
      (answer) => answer.body.length === 1,
    );
    expect(listed.body).toEqual([
      expect.objectContaining({
        id: created.body.id,
        status: "succeeded",
        store_id: store.id,
        merchant_id: demo.merchant.id,
      }),
    ]);
  });

  it("takes no new intents once deactivated, and refuses to confirm the ones it had", async () => {
    const store = await newStore();
    const before = await intentFor(store);
    expect(before.status).toBe(201);
    expect((await rest("DELETE", `/api/v1/stores/${store.id}`)).body.status).toBe("inactive");
    const refused = await eventually(
      () => createIntent(platform.baseUrl, demo.partner, store.code),
      (answer) => answer.status !== 201,
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      code: "invalid_request",
      message: "this store is inactive",
      details: { field: "merchant_store_id", constraint: "active_store" },
    });
    const confirmed = await call(platform.baseUrl, "POST", `/v1/payment_intents/${before.body.id}/confirm`, {
      payment_token: before.body.payment_token.token,
      payment_method_type: "qr_mpm",
      provider: "sandbox",
    });
    expect(confirmed.status).toBe(400);
    expect(confirmed.body.details).toMatchObject({ field: "provider", constraint: "active_configuration" });
  });
});

describe("without the demo tenant", () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
  });
  afterAll(() => platform?.close());

  it("provisions the platform's sync partner once, and syncs at start what was written while it was down", async () => {
    const provisioned = await platform.partners.credentialsFor(edge, PORTAL_SYNC_CLIENT_ID);
    expect(provisioned).toEqual({ client_partner_id: expect.any(Number), secrets: [expect.any(String)] });
    await platform.stop();
    // Tenants written while the platform is down (the portal opened on its own has no gateway to push to).
    const { config } = platform;
    const masterKey = loadOrCreateMasterKey(config.dataDir);
    const portal = await openPortal({ url: config.databaseUrls.portal, dataDir: config.dataDir, masterKey });
    const { store } = await seedBranch(portal);
    await portal.close();

    await platform.restart();
    expect(await platform.partners.credentialsFor(edge, PORTAL_SYNC_CLIENT_ID)).toEqual(provisioned);
    const partner = { client_id: PORTAL_SYNC_CLIENT_ID, secret: provisioned!.secrets[0]! };
    const created = await eventually(
      () => createIntent(platform.baseUrl, partner, store.code),
      (answer) => answer.status === 201,
    );
    expect(created.status).toBe(201);
    expect(created.body.merchant_store_id).toBe(store.code);
  });
});

describe("with PORTAL_GATEWAY_* set", () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
  });
  afterAll(() => platform?.close());

  it("syncs as the configured client partner instead of the platform's own", async () => {
    const configured = await platform.partners.createPartner("configured partner");
    const key = await platform.partners.issueApiKey(configured.id);
    await platform.stop();
    platform.config.gatewaySync = { clientId: key.client_id, secret: key.secret, clientPartnerId: configured.id };
    await platform.restart();
    const { store } = await seedBranch(platform.portal);
    const created = await eventually(
      () => createIntent(platform.baseUrl, key, store.code),
      (answer) => answer.status === 201,
    );
    expect(created.status).toBe(201);
    const own = await platform.partners.credentialsFor(edge, PORTAL_SYNC_CLIENT_ID);
    const asOwn = await createIntent(
      platform.baseUrl,
      { client_id: PORTAL_SYNC_CLIENT_ID, secret: own!.secrets[0]! },
      store.code,
    );
    expect(asOwn.body.details).toMatchObject({ field: "merchant_store_id" });
  });
});
