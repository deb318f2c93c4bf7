import { randomInt, randomUUID } from "node:crypto";
import { type Caller, logger } from "@pos-cloud/common";
import type { IssuedApiKey } from "@pos-cloud/payments";
import { openPortal } from "@pos-cloud/portal";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadOrCreateMasterKey } from "../../apps/platform/src/master-key";
import { PORTAL_SYNC_CLIENT_ID } from "../../apps/platform/src/sync-partner";
import { SYNC_LEASE_MS } from "../../subgraphs/payments/src/modules/partners/sync-lease";
import { movableClock } from "../../subgraphs/payments/src/testing";
import { clusterWiring, uniqueCode } from "../support/environment";
import { type Credentials, call, type GatewayResponse, signed } from "../support/gateway";
import { inProcessOnly, logIn, startTestPlatform, type TestPlatform } from "../support/platform";
import { operator, seedBranch } from "../support/portal-seed";
import { type SeededStore, type SeededStorePartner, seed } from "../support/seed";

const edge: Caller = { type: "service", id: "test", scopes: [] };

/** Repeats `attempt` until its answer satisfies `done` and returns that answer: the sync is asynchronous. */
async function eventually(
  attempt: () => Promise<GatewayResponse>,
  done: (answer: GatewayResponse) => boolean,
): Promise<GatewayResponse> {
  let answer = await attempt();
  await vi.waitFor(
    async () => {
      answer = await attempt();
      expect(done(answer)).toBe(true);
    },
    { timeout: 10_000, interval: 25 },
  );
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
  /** A store of the merchant whose admin adds stores; the POS partner's key, which the portal syncs for. */
  let first: SeededStore;
  let partner: SeededStorePartner;
  let token: string;
  beforeAll(async () => {
    platform = await startTestPlatform({ paymentsPollIntervalMs: 60_000, demo: false });
    first = await seed(platform).store();
    partner = await seed(platform).storePartner(first);
    token = (await logIn(platform.baseUrl, await seed(platform).user("MERCHANT_ADMIN", first))).access_token;
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
  /** A new store of the merchant with the sandbox's credentials, by the merchant admin over REST. */
  const newStore = async () => {
    const created = await rest("POST", "/api/v1/stores", {
      merchant_id: first.merchant_id,
      code: uniqueCode("S"),
      name: "Portal store",
      provider_credentials: { sandbox: seed(platform).providers().provider.credentials },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ has_provider_credentials: true, status: "active" });
    return created.body as { id: number; code: string };
  };
  const intentFor = (store: { code: string }) =>
    eventually(
      () => createIntent(platform.baseUrl, partner, store.code),
      (answer) => answer.status === 201,
    );

  it("takes a QR payment through the POS partner once the portal has synced it", async () => {
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
    const sandboxUrl = seed(platform).providers().provider.base_url;
    const paid = await fetch(`${sandboxUrl}/sandbox/transactions/${transactionId}/pay`, { method: "POST" });
    expect(paid.status).toBe(200);
    const listed = await eventually(
      () =>
        signed(
          platform.baseUrl,
          partner,
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
        merchant_id: first.merchant_id,
      }),
    ]);
  });

  it("takes no new intents once deactivated, and refuses to confirm the ones it had", async () => {
    const store = await newStore();
    const before = await intentFor(store);
    expect(before.status).toBe(201);
    expect((await rest("DELETE", `/api/v1/stores/${store.id}`)).body.status).toBe("inactive");
    const refused = await eventually(
      () => createIntent(platform.baseUrl, partner, store.code),
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
    expect(provisioned).toEqual({
      client_partner_id: expect.any(Number),
      keys: [{ id: expect.any(String), secret: expect.any(String), expires_at: expect.any(Date), revoked: false }],
    });
    await platform.stop();
    // Tenants written while the platform is down (the portal opened on its own has no gateway to push to).
    const { config } = platform;
    const masterKey = loadOrCreateMasterKey(config.dataDir);
    const portal = await openPortal({ url: config.databaseUrls.portal, dataDir: config.dataDir, masterKey });
    const { store } = await seedBranch(portal);
    await portal.close();

    await platform.restart();
    expect(await platform.partners.credentialsFor(edge, PORTAL_SYNC_CLIENT_ID)).toEqual(provisioned);
    const partner = { client_id: PORTAL_SYNC_CLIENT_ID, secret: provisioned!.keys[0]!.secret };
    const created = await eventually(
      () => createIntent(platform.baseUrl, partner, store.code),
      (answer) => answer.status === 201,
    );
    expect(created.status).toBe(201);
    expect(created.body.merchant_store_id).toBe(store.code);
  });
});

// In-process only: PORTAL_GATEWAY_* configure the embedded platform (a cluster's workers sync as its own partner).
describe.skipIf(clusterWiring)("with PORTAL_GATEWAY_* set", () => {
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
      { client_id: PORTAL_SYNC_CLIENT_ID, secret: own!.keys[0]!.secret },
      store.code,
    );
    expect(asOwn.body.details).toMatchObject({ field: "merchant_store_id" });
  });
});

describe("another client partner and the portal's tenants", () => {
  const clock = movableClock();
  let platform: TestPlatform;
  /** A store the portal synced, and the POS partner's key that signs for it. */
  let home: SeededStore;
  let partner: SeededStorePartner;
  /** A second client partner at the same gateway, with an API key of its own. */
  let other: IssuedApiKey;
  beforeAll(async () => {
    platform = await startTestPlatform({ clock, paymentsPollIntervalMs: 60_000, demo: false });
    home = await seed(platform).store({ sells: true });
    partner = await seed(platform).storePartner(home);
    other = await platform.partners.issueApiKey((await platform.partners.createPartner("another POS partner")).id);
  });
  afterAll(() => platform?.close());

  const sync = (partner: Credentials, payload: unknown) =>
    signed(platform.baseUrl, partner, "POST", "/v1/sync/merchants", payload);
  /** The ids the portal gives its next merchants and stores, as an attacker would guess them. */
  const nextIds = async (kind: "merchant" | "store") => {
    const aggregate =
      kind === "merchant"
        ? await platform.portal.prisma.merchant.aggregate({ _max: { id: true } })
        : await platform.portal.prisma.store.aggregate({ _max: { id: true } });
    const last = aggregate._max.id ?? 0;
    return [last + 1, last + 2, last + 3];
  };
  const intentAt = (storeId: number) => createIntent(platform.baseUrl, partner, String(storeId));

  it("refuses a partner's claim on ids the portal has not synced yet, and syncs them for the portal", async () => {
    const [merchantIds, storeIds] = [await nextIds("merchant"), await nextIds("store")];
    const claim = {
      merchants: merchantIds.map((merchant_id, i) => ({
        merchant_id,
        merchant_code: "SQUAT",
        stores: [{ store_id: storeIds[i], store_code: "SQUAT" }],
      })),
    };
    const refused = await sync(other, claim);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      code: "forbidden",
      message: `merchant ${merchantIds[0]} is not one of yours: only the platform's sync partner creates merchant and store ids`,
      details: { field: "merchant_id", id: merchantIds[0] },
    });

    // The portal's next merchant and stores get the ids the partner tried to take, and reach the gateway.
    const { merchant, store, otherStore } = await seedBranch(platform.portal);
    expect(merchantIds).toContain(merchant.id);
    expect(storeIds).toEqual(expect.arrayContaining([store.id, otherStore.id]));
    const created = await eventually(
      () => intentAt(store.id),
      (answer) => answer.status === 201,
    );
    expect(created.status).toBe(201);
    const intent = await platform.payments.prisma.paymentIntent.findUnique({ where: { id: created.body.id } });
    expect(intent).toMatchObject({ merchant_id: merchant.id, store_id: store.id });
  });

  it("keeps a partner from overwriting or deactivating another partner's merchant, either way", async () => {
    const takeover = {
      merchants: [
        {
          merchant_id: home.merchant_id,
          stores: [
            {
              store_id: home.id,
              is_active: false,
              provider_configs: [{ provider_code: "sandbox", credentials: { merchant_id: "mine" }, is_active: true }],
            },
          ],
        },
      ],
    };
    const refused = await sync(other, takeover);
    expect(refused.status).toBe(403);
    expect(refused.body.details).toEqual({ field: "merchant_id", id: home.merchant_id });
    expect((await intentAt(home.id)).status).toBe(201);

    // A merchant an operator granted the other partner is out of the portal's partner's reach in turn.
    const granted = { merchant_id: randomInt(1_000_000_000, 2_000_000_000), stores: [{ store_id: randomInt(1, 1e9) }] };
    await platform.payments.merchantSync.grant(other.client_partner_id, { merchants: [granted] });
    const deactivate = { merchants: [{ ...granted, stores: [{ ...granted.stores[0], is_active: false }] }] };
    const portalRefused = await sync(partner, deactivate);
    expect(portalRefused.status).toBe(403);
    expect(portalRefused.body.message).toBe(`merchant ${granted.merchant_id} is held by another client partner`);
    expect(
      await platform.payments.prisma.store.findUnique({ where: { id: granted.stores[0]!.store_id } }),
    ).toMatchObject({ is_active: true });
  });

  // Last: it leaves the home merchant unsyncable.
  // In-process only: moves the platform's clock and reads its log.
  inProcessOnly(
    "alerts on a sync the gateway refuses, and stops a store deactivated meanwhile when its lease runs out",
    async () => {
      const errors = vi.spyOn(logger, "error");
      const refusals = () =>
        errors.mock.calls.filter(
          ([, fields]) =>
            fields?.alert === "gateway_sync_refused" && (fields.merchantIds as number[]).includes(home.merchant_id),
        );
      try {
        const store = await platform.portal.tenants.createStore(operator, {
          merchant_id: home.merchant_id,
          code: uniqueCode("S"),
          name: "Deactivated while unsyncable",
          provider_credentials: { sandbox: seed(platform).providers().provider.credentials },
        });
        const taking = await eventually(
          () => intentAt(store.id),
          (answer) => answer.status === 201,
        );
        expect(taking.status).toBe(201);

        // Another partner holds the id of the merchant's next store (a grant, or a claim made before the gateway
        // refused them): from then on every sync of the merchant is refused.
        const held = await nextIds("store");
        await platform.payments.merchantSync.grant(other.client_partner_id, {
          merchants: [
            { merchant_id: randomInt(1_000_000_000, 2_000_000_000), stores: held.map((store_id) => ({ store_id })) },
          ],
        });
        const blocked = await platform.portal.tenants.createStore(operator, {
          merchant_id: home.merchant_id,
          code: uniqueCode("S"),
          name: "Blocked",
        });
        expect(held).toContain(blocked.id);
        await vi.waitFor(() => expect(refusals()).toHaveLength(1), { timeout: 10_000 });
        expect(refusals()[0]).toEqual([
          "gateway sync refused",
          {
            alert: "gateway_sync_refused",
            merchantIds: [home.merchant_id],
            status: 403,
            code: "forbidden",
            reason: `store ${blocked.id} is held by another client partner`,
            details: { field: "store_id", id: blocked.id },
          },
        ]);

        // The deactivation cannot reach the gateway, which goes on taking intents for the store for now...
        await platform.portal.tenants.deactivateStore(operator, store.id);
        await vi.waitFor(() => expect(refusals()).toHaveLength(2), { timeout: 10_000 });
        expect((await intentAt(store.id)).status).toBe(201);
        // ...until the lease of its last sync runs out.
        clock.advance(SYNC_LEASE_MS);
        const refused = await intentAt(store.id);
        expect(refused.status).toBe(400);
        expect(refused.body).toEqual({
          code: "invalid_request",
          message:
            "this store's configuration has not been synced for an hour; it takes no payments until it is synced again",
          details: { field: "merchant_store_id", constraint: "synced_store" },
        });
      } finally {
        errors.mockRestore();
      }
    },
  );
});
