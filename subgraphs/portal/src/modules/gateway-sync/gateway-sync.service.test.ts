import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { logger, secretBox, signScheme1 } from "@pos-cloud/common";
import { startJobs } from "@pos-cloud/common/jobs";
import { retryPolicies } from "@pos-cloud/common/tasks";
import { isolatedStorage } from "@pos-cloud/test-support/databases";
import { uniqueCode } from "@pos-cloud/test-support/environment";
import { operator } from "@pos-cloud/test-support/portal-seed";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { PortalDeps } from "../../context";
import { openPortal } from "../../index";
import { SYNC_PATH } from "./gateway-sync.client";
import { gatewaySyncRepository } from "./gateway-sync.repository";
import { FULL_SYNC_INTERVAL_MS, gatewaySyncService, SYNC_CLAIM_MS } from "./gateway-sync.service";

interface Received {
  body: any;
  signatureValid: boolean;
  status: number;
}

const REFUSAL = {
  code: "forbidden",
  message: "store 9 is held by another client partner",
  details: { field: "store_id", id: 9 },
};
const answerFor = (status: number) =>
  status === 200
    ? { synced_merchants: 1, synced_stores: 1 }
    : status === 403
      ? REFUSAL
      : { code: "internal_error", message: "the gateway is down for a test" };

/** A stand-in for the gateway's sync endpoint over real HTTP: checks the HMAC and answers with `status(body)`. */
function fakeGateway(secret: string, status: (body: any) => number) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString();
      const [, clientId, timestamp, signature] =
        /^HMAC-SHA256 ([^:]+):(\d+):(\w+)$/.exec(req.headers.authorization ?? "") ?? [];
      const valid =
        req.url === SYNC_PATH &&
        clientId === "portal-client" &&
        signature === signScheme1(secret, "POST", SYNC_PATH, Number(timestamp), raw);
      const body = JSON.parse(raw);
      const answer = status(body);
      received.push({ body, signatureValid: valid, status: answer });
      res.writeHead(answer, { "content-type": "application/json" }).end(JSON.stringify(answerFor(answer)));
    });
  });
  return {
    received,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const until = async (condition: () => boolean) => {
  await expect.poll(condition, { timeout: 5000 }).toBe(true);
};

describe("gateway sync", () => {
  const secret = randomBytes(24).toString("hex");
  const masterKey = randomBytes(32);
  // Time moves only when a test moves it: on a busy machine real milliseconds passed between a step and the next.
  const start = Date.now();
  let offset = 0;
  const clock = () => new Date(start + offset);
  const advance = (ms: number) => {
    offset += ms;
  };
  let failures = 0;
  /** Merchants whose every push the gateway refuses, as for a store id another partner holds. */
  const refusing = new Set<number>();
  const gateway = fakeGateway(secret, (body) =>
    body.merchants.some((m: { merchant_id: number }) => refusing.has(m.merchant_id)) ? 403 : failures-- > 0 ? 503 : 200,
  );
  const errors = vi.spyOn(logger, "error");
  const warnings = vi.spyOn(logger, "warn");
  afterEach(() => {
    errors.mockClear();
    warnings.mockClear();
  });
  const alertsFor = (merchantId: number) =>
    errors.mock.calls.filter(([, fields]) => (fields?.merchantIds as number[] | undefined)?.includes(merchantId));
  let portal: PortalDeps;
  let url: string;
  const config = () => ({ url, clientId: "portal-client", secret, clientPartnerId: 7 });
  // The full sync covers every merchant of the database: storage of its own keeps others' merchants out.
  let storage: Awaited<ReturnType<typeof isolatedStorage>>;
  /** Another worker on the same database, as another instance of the portal runs one. */
  const otherWorker = () => {
    const sync = gatewaySyncService(gatewaySyncRepository(portal.prisma), secretBox(masterKey), { clock });
    sync.configure(config());
    return sync;
  };

  beforeAll(async () => {
    url = await gateway.listen();
    storage = await isolatedStorage(["portal"]);
    portal = await openPortal({ url: storage.urls.portal, masterKey, clock });
    portal.gatewaySync.configure(config());
  });
  /** A merchant of a PSP of its own, with fresh codes. */
  const newMerchant = async (provider_credentials?: Record<string, Record<string, string>>) => {
    const psp = await portal.tenants.createPsp(operator, { code: uniqueCode("P"), name: "p" });
    return portal.tenants.createMerchant(operator, {
      psp_id: psp.id,
      code: uniqueCode("M"),
      name: "m",
      ...(provider_credentials && { provider_credentials }),
    });
  };
  const pushesOf = (merchantId: number) =>
    gateway.received.filter((r) => r.body.merchants.some((m: { merchant_id: number }) => m.merchant_id === merchantId));
  const rowOf = (merchant_id: number) => portal.prisma.gatewaySyncOutbox.findUnique({ where: { merchant_id } });
  /** Every row due now is pushed, and the rows the test left are pushed too. */
  const pushEverything = async () => {
    advance(FULL_SYNC_INTERVAL_MS + SYNC_CLAIM_MS);
    while ((await portal.gatewaySync.pushDue()) > 0);
  };
  afterAll(async () => {
    await portal?.close();
    await storage?.drop();
    await gateway.close();
  });

  it("pushes a changed merchant in variant B, signed with scheme 1, store credentials overriding the merchant's", async () => {
    const merchant = await newMerchant({ sandbox: { merchant_id: "m-1" }, paypay: { merchant_id: "pp-m" } });
    const store = await portal.tenants.createStore(operator, {
      merchant_id: merchant.id,
      code: uniqueCode("S"),
      name: "s",
      provider_credentials: { paypay: { merchant_id: "pp-store" } },
    });
    // Two changes, one row: the push sends the configuration as it is when it is made.
    expect(await rowOf(merchant.id)).toMatchObject({ version: 2, attempts: 0 });
    expect(await portal.gatewaySync.pushDue()).toBeGreaterThan(0);
    expect(await rowOf(merchant.id)).toBeNull();
    const [push] = pushesOf(merchant.id);
    expect(push!.signatureValid).toBe(true);
    expect(push!.body).toEqual({
      client_partner_id: 7,
      merchants: [
        {
          merchant_id: merchant.id,
          merchant_code: merchant.code,
          psp_id: merchant.psp_id,
          stores: [
            {
              store_id: store.id,
              store_code: store.code,
              is_active: true,
              tip_ceiling_percent: 20,
              provider_configs: [
                { provider_code: "sandbox", credentials: { merchant_id: "m-1" }, is_active: true },
                { provider_code: "paypay", credentials: { merchant_id: "pp-store" }, is_active: true },
              ],
            },
          ],
        },
      ],
    });
  });

  it("sends each store's tip ceiling from its payment_config over its merchant's, else the default", async () => {
    const merchant = await newMerchant();
    await portal.tenants.updateMerchant(operator, merchant.id, { payment_config: { tip_ceiling_percent: 10 } });
    const store = (payment_config?: object) =>
      portal.tenants.createStore(operator, {
        merchant_id: merchant.id,
        code: uniqueCode("S"),
        name: "s",
        payment_config,
      });
    await store({ tip_ceiling_percent: 0 });
    await store();
    await portal.gatewaySync.pushDue();
    const ceilings = () =>
      pushesOf(merchant.id)
        .at(-1)!
        .body.merchants[0].stores.map((each: { tip_ceiling_percent: number }) => each.tip_ceiling_percent);
    expect(ceilings()).toEqual([0, 10]);
    // A key removed takes the gateway back to the default rather than leaving the last value there.
    await portal.tenants.updateMerchant(operator, merchant.id, { payment_config: {} });
    await portal.gatewaySync.pushDue();
    expect(ceilings()).toEqual([0, 20]);
  });

  it("writes the row in the change's transaction: a change that fails owes no push", async () => {
    const merchant = await newMerchant();
    const taken = await portal.tenants.createMerchant(operator, {
      psp_id: merchant.psp_id,
      code: uniqueCode("M"),
      name: "m",
    });
    await pushEverything();
    await expect(portal.tenants.updateMerchant(operator, merchant.id, { code: taken.code })).rejects.toMatchObject({
      code: "conflict",
    });
    expect(await rowOf(merchant.id)).toBeNull();
  });

  it("retries a failed push with backoff, raises an alert once the schedule is spent, and keeps trying", async () => {
    await pushEverything();
    const merchant = await newMerchant();
    failures = 100;
    expect(await portal.gatewaySync.pushDue()).toBe(1);
    for (const [index, delay] of retryPolicies.gateway_sync.delaysMs.entries()) {
      expect(await rowOf(merchant.id)).toMatchObject({ attempts: index + 1, last_error: expect.any(String) });
      // Not due before its delay.
      advance(delay - 100);
      expect(await portal.gatewaySync.pushDue()).toBe(0);
      advance(100);
      expect(await portal.gatewaySync.pushDue()).toBe(1);
    }
    expect(pushesOf(merchant.id)).toHaveLength(retryPolicies.gateway_sync.delaysMs.length + 1);
    expect(warnings).toHaveBeenCalledWith("gateway sync failed; retrying", {
      merchantIds: [merchant.id],
      attempt: 1,
      delay_ms: retryPolicies.gateway_sync.delaysMs[0],
      status: 503,
      code: "internal_error",
      reason: "the gateway is down for a test",
      details: undefined,
    });
    expect(alertsFor(merchant.id)).toEqual([
      [
        "gateway sync keeps failing",
        expect.objectContaining({
          alert: "gateway_sync_failed",
          status: 503,
          reason: "the gateway is down for a test",
        }),
      ],
    ]);
    failures = 0;
    advance(FULL_SYNC_INTERVAL_MS);
    expect(await portal.gatewaySync.pushDue()).toBe(1);
    expect(await rowOf(merchant.id)).toBeNull();
  });

  it("logs a refused push with the gateway's reason and raises an alert, without retrying it", async () => {
    await pushEverything();
    const merchant = await newMerchant();
    refusing.add(merchant.id);
    await portal.gatewaySync.pushDue();
    expect(alertsFor(merchant.id)).toEqual([
      [
        "gateway sync refused",
        {
          alert: "gateway_sync_refused",
          merchantIds: [merchant.id],
          status: 403,
          code: "forbidden",
          reason: "store 9 is held by another client partner",
          details: { field: "store_id", id: 9 },
        },
      ],
    ]);
    // The refusal was final: no retry was scheduled.
    expect(warnings).not.toHaveBeenCalled();
    expect(await rowOf(merchant.id)).toBeNull();
    refusing.delete(merchant.id);
  });

  it("pushes a refused batch merchant by merchant, so one refusal holds back no other", async () => {
    await pushEverything();
    const refused = await newMerchant();
    const fine = await newMerchant();
    refusing.add(refused.id);
    const before = gateway.received.length;
    await portal.gatewaySync.pushDue();
    const pushes = gateway.received.slice(before).map((r) => ({
      ids: r.body.merchants.map((m: { merchant_id: number }) => m.merchant_id),
      status: r.status,
    }));
    expect(pushes[0]).toMatchObject({ status: 403, ids: expect.arrayContaining([refused.id, fine.id]) });
    expect(pushes).toContainEqual({ ids: [fine.id], status: 200 });
    expect(pushes).toContainEqual({ ids: [refused.id], status: 403 });
    expect(alertsFor(refused.id).at(-1)?.[1]).toMatchObject({
      alert: "gateway_sync_refused",
      merchantIds: [refused.id],
    });
    expect(alertsFor(fine.id)).toHaveLength(0);
    refusing.delete(refused.id);
  });

  it("pushes each merchant once when two workers take rows at the same time", async () => {
    await pushEverything();
    const merchants = [await newMerchant(), await newMerchant(), await newMerchant()];
    await Promise.all([portal.gatewaySync.pushDue(), otherWorker().pushDue()]);
    for (const merchant of merchants) expect(pushesOf(merchant.id)).toHaveLength(1);
  });

  it("leaves the rows of a worker stopped mid-claim to another worker once the claim runs out", async () => {
    await pushEverything();
    const merchant = await newMerchant();
    // A worker claims the row and dies before pushing.
    const now = clock();
    const rows = gatewaySyncRepository(portal.prisma);
    expect(await rows.claim(now, new Date(now.getTime() + SYNC_CLAIM_MS), 100)).toMatchObject([
      { merchant_id: merchant.id },
    ]);
    expect(await otherWorker().pushDue()).toBe(0);
    advance(SYNC_CLAIM_MS);
    expect(await otherWorker().pushDue()).toBe(1);
    expect(pushesOf(merchant.id)).toHaveLength(1);
  });

  it("pushes a merchant again when it changed while its push was under way", async () => {
    await pushEverything();
    const merchant = await newMerchant();
    const rows = gatewaySyncRepository(portal.prisma);
    const now = clock();
    const [claimed] = await rows.claim(now, new Date(now.getTime() + SYNC_CLAIM_MS), 100);
    await portal.tenants.updateMerchant(operator, merchant.id, { name: "renamed" });
    // The claim's push is done, but it stood for the configuration before the change.
    await rows.done(claimed!);
    expect(await rowOf(merchant.id)).toMatchObject({ version: 2, locked_until: null });
    expect(await portal.gatewaySync.pushDue()).toBe(1);
    expect(await rowOf(merchant.id)).toBeNull();
  });

  it("syncs a deactivated store inactive, itself and its provider configurations", async () => {
    const merchant = await newMerchant();
    const store = await portal.tenants.createStore(operator, {
      merchant_id: merchant.id,
      code: uniqueCode("S"),
      name: "s",
      provider_credentials: { sandbox: { merchant_id: "m-1" } },
    });
    await portal.tenants.deactivateStore(operator, store.id);
    await portal.gatewaySync.pushDue();
    expect(pushesOf(merchant.id).at(-1)!.body.merchants[0].stores[0]).toEqual({
      store_id: store.id,
      store_code: store.code,
      is_active: false,
      tip_ceiling_percent: 20,
      provider_configs: [{ provider_code: "sandbox", credentials: { merchant_id: "m-1" }, is_active: false }],
    });
  });

  it("lets the caller of sync() see the gateway's refusal, without retrying", async () => {
    const merchant = await newMerchant();
    failures = 1;
    await expect(portal.gatewaySync.sync([merchant.id])).rejects.toThrow("the gateway answered 503");
    await portal.gatewaySync.sync([merchant.id]);
    expect(pushesOf(merchant.id)).toHaveLength(2);
  });

  it("syncs every merchant at start, pushes a change at once, and after a restart what was left", async () => {
    await pushEverything();
    const before = gateway.received.length;
    const all = (await portal.prisma.merchant.findMany({ select: { id: true } })).map((m) => m.id);
    const synced = () =>
      new Set(
        gateway.received
          .slice(before)
          .flatMap((r) => r.body.merchants.map((m: { merchant_id: number }) => m.merchant_id)),
      );
    const worker = await startJobs([portal.gatewaySync.job({ pollMs: 60 * 60 * 1000 })]);
    await until(() => all.every((id) => synced().has(id)));
    const changed = await newMerchant();
    await until(() => pushesOf(changed.id).length === 1);
    await worker.stop();
    // A change while no worker runs waits in its row for the next worker.
    const meanwhile = await newMerchant();
    expect(await rowOf(meanwhile.id)).toMatchObject({ attempts: 0 });
    const restarted = otherWorker();
    const restartedWorker = await startJobs([restarted.job({ pollMs: 60 * 60 * 1000 })]);
    await until(() => pushesOf(meanwhile.id).length > 0);
    await restartedWorker.stop();
  });
});
