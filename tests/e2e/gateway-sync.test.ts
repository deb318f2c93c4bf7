import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { type Caller, logger, repositoryRoot } from "@pos-cloud/common";
import type { IssuedApiKey } from "@pos-cloud/payments";
import { openPortal } from "@pos-cloud/portal";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadOrCreateMasterKey } from "../../apps/platform/src/master-key";
import { PORTAL_SYNC_CLIENT_ID, POS_PAYMENTS_CLIENT_ID } from "../../apps/platform/src/sync-partner";
import { SYNC_LEASE_MS } from "../../subgraphs/payments/src/modules/partners/sync-lease.rules";
import { clusterWiring, uniqueCode } from "../support/environment";
import { type Credentials, call, type GatewayResponse, signed } from "../support/gateway";
import { movableClock, systemOperator } from "../support/payments";
import { inProcessOnly, logIn, startTestPlatform, type TestPlatform } from "../support/platform";
import { operator, seedBranch } from "../support/portal-seed";
import { confirmAndPayByQr } from "../support/sandbox-provider";
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
    const confirmed = await confirmAndPayByQr(
      platform.baseUrl,
      seed(platform).providers().provider.base_url,
      created.body,
    );
    expect(confirmed).toMatchObject({ payment_id: created.body.id, provider: "sandbox" });
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
    const key = { id: expect.any(String), secret: expect.any(String), expires_at: expect.any(Date), revoked: false };
    expect(provisioned).toEqual({
      client_partner_id: expect.any(Number),
      keys: [{ ...key, permissions: ["sync:write"], store_ids: [] }],
    });
    const posKeys = await platform.partners.credentialsFor(edge, POS_PAYMENTS_CLIENT_ID);
    expect(posKeys).toEqual({
      client_partner_id: provisioned!.client_partner_id,
      keys: [
        { ...key, permissions: ["payment_intents:write", "payment_intents:read", "refunds:write"], store_ids: [] },
      ],
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
    expect(await platform.partners.credentialsFor(edge, POS_PAYMENTS_CLIENT_ID)).toEqual(posKeys);
    const pos = { client_id: POS_PAYMENTS_CLIENT_ID, secret: posKeys!.keys[0]!.secret };
    const created = await eventually(
      () => createIntent(platform.baseUrl, pos, store.code),
      (answer) => answer.status === 201,
    );
    expect(created.status).toBe(201);
    expect(created.body.merchant_store_id).toBe(store.code);
    // Each key does its holder's part only: the portal's sync key takes no payment, POS's key syncs no tenant.
    const sync = { client_id: PORTAL_SYNC_CLIENT_ID, secret: provisioned!.keys[0]!.secret };
    expect((await createIntent(platform.baseUrl, sync, store.code)).body).toMatchObject({
      code: "missing_permission",
      details: { permission: "payment_intents:write" },
    });
    const posSync = await signed(platform.baseUrl, pos, "POST", "/v1/sync/merchants", { merchants: [] });
    expect(posSync.status).toBe(403);
    expect(posSync.body).toMatchObject({ code: "missing_permission", details: { permission: "sync:write" } });
  });
});

describe("two portal processes", () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
  });
  afterAll(() => platform?.close());

  /** The portal's sync client in a process of its own: nothing of one is shared with another but the gateway. */
  const syncFromProcess = (sync: string) =>
    new Promise<{ code: number | null; answer: unknown }>((resolve, reject) => {
      const child = execFile(
        process.execPath,
        ["--import", "tsx", join(repositoryRoot, "tests/support/post-sync.ts"), sync],
        { cwd: repositoryRoot },
        (error, stdout) => {
          if (error && typeof error.code !== "number") reject(error);
          else resolve({ code: child.exitCode, answer: JSON.parse(stdout) });
        },
      );
    });

  it("both get the gateway's answer when they send the same sync within one second (issue 32)", async () => {
    const own = await platform.partners.credentialsFor(edge, PORTAL_SYNC_CLIENT_ID);
    const config = {
      url: platform.baseUrl,
      clientId: PORTAL_SYNC_CLIENT_ID,
      secret: own!.keys[0]!.secret,
      clientPartnerId: own!.client_partner_id,
    };
    const store = await seed(platform).store();
    const { payload, version } = await platform.portal.gatewaySync.syncRequest([store.merchant_id]);
    // The same bytes signed in the same second: the same signature, which the gateway takes once.
    const sync = JSON.stringify({ config, payload, options: { version, now: Date.now() } });
    const synced = { code: 0, answer: { synced_merchants: 1, synced_stores: 1 } };
    expect(await Promise.all([syncFromProcess(sync), syncFromProcess(sync)])).toEqual([synced, synced]);
    // One more after both have their answer: the stored one.
    expect(await syncFromProcess(sync)).toEqual(synced);
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
    const own = await platform.partners.credentialsFor(edge, POS_PAYMENTS_CLIENT_ID);
    const asOwn = await createIntent(
      platform.baseUrl,
      { client_id: POS_PAYMENTS_CLIENT_ID, secret: own!.keys[0]!.secret },
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
      message: `merchant ${merchantIds[0]} is not one of yours: it is not granted to you`,
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

  it("keeps a partner without a grant off the portal's merchant, and one with a store grant to that store", async () => {
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

    // A grant of one store lets the other partner sync that store, not its merchant's fields nor its other stores.
    const [granted] = (
      await platform.payments.grants.grant(systemOperator, other.client_partner_id, {
        merchant_id: home.merchant_id,
        store_ids: [home.id],
      })
    ).grants;
    const renamed = await sync(other, { merchants: [{ merchant_id: home.merchant_id, name: "Taken" }] });
    expect(renamed.status).toBe(403);
    expect(renamed.body.message).toBe(`merchant ${home.merchant_id}: only the stores granted to you may be synced`);
    const named = { merchants: [{ merchant_id: home.merchant_id, stores: [{ store_id: home.id, name: "Renamed" }] }] };
    expect((await sync(other, named)).status).toBe(200);
    await platform.payments.grants.revoke(systemOperator, other.client_partner_id, granted!.id);
    const again = { merchants: [{ ...named.merchants[0], stores: [{ store_id: home.id, name: "Again" }] }] };
    expect((await sync(other, again)).status).toBe(403);
    expect((await intentAt(home.id)).status).toBe(201);
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

        // The platform's sync partner is another partner for a while (an operator's mistake): the portal's partner,
        // granted its merchant meanwhile, may not create the merchant's next store id, so every sync of it is refused.
        await platform.payments.grants.grant(systemOperator, partner.client_partner_id, {
          merchant_id: home.merchant_id,
        });
        await platform.payments.partners.designateSyncPartner(other.client_partner_id);
        const held = await nextIds("store");
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
            reason: `store ${blocked.id} is not one of yours: it is not granted to you`,
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
        await platform.payments.partners.designateSyncPartner(partner.client_partner_id);
      }
    },
  );
});
