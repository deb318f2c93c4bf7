import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { logger, secretBox } from "@pos-cloud/common";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { isolatedStorage } from "../../../../../tests/support/databases";
import { uniqueCode } from "../../../../../tests/support/environment";
import { operator } from "../../../../../tests/support/portal-seed";
import type { PortalDeps } from "../../context";
import { openPortal } from "../../index";
import { SYNC_PATH, signScheme1 } from "./gateway-sync.client";
import { gatewaySyncRepository } from "./gateway-sync.repository";
import { gatewaySyncService } from "./gateway-sync.service";

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
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(condition()).toBe(true);
};

describe("gateway sync", () => {
  const secret = randomBytes(24).toString("hex");
  const masterKey = randomBytes(32);
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
  // The full sync pages through every merchant of the database: storage of its own keeps others' merchants out.
  let storage: Awaited<ReturnType<typeof isolatedStorage>>;

  beforeAll(async () => {
    url = await gateway.listen();
    storage = await isolatedStorage(["portal"]);
    portal = await openPortal({ url: storage.urls.portal, masterKey });
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
  /** A new merchant once the portal's own push of it (on creation) has reached the gateway. */
  const pushedMerchant = async () => {
    const merchant = await newMerchant();
    await until(() => gateway.received.some((r) => r.body.merchants[0]?.merchant_id === merchant.id));
    return merchant;
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
    const ofStore = (r: Received) =>
      r.body.merchants[0]?.stores.some((s: { store_id: number }) => s.store_id === store.id);
    await until(() => gateway.received.some(ofStore));
    const push = gateway.received.find(ofStore)!;
    expect(push.signatureValid).toBe(true);
    expect(push.body).toEqual({
      client_partner_id: 7,
      merchants: [
        {
          merchant_id: merchant.id,
          merchant_code: merchant.code,
          stores: [
            {
              store_id: store.id,
              store_code: store.code,
              is_active: true,
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

  it("retries a failed push with backoff, a bounded number of times", async () => {
    const sync = gatewaySyncService(gatewaySyncRepository(portal.prisma), secretBox(masterKey), {
      retryDelaysMs: [10, 10],
    });
    sync.configure(config());
    const merchant = await newMerchant();
    const ofMerchant = () => gateway.received.filter((r) => r.body.merchants[0]?.merchant_id === merchant.id).length;
    await until(() => ofMerchant() === 1);
    failures = 2;
    sync.changed(merchant.id);
    await until(() => ofMerchant() === 4);
    failures = 10;
    sync.changed(merchant.id);
    await until(() => ofMerchant() === 7);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ofMerchant()).toBe(7);
    failures = 0;
    // Each attempt says why it failed; giving up raises an alert.
    expect(warnings).toHaveBeenCalledWith("gateway sync failed; retrying", {
      merchantIds: [merchant.id],
      attempt: 1,
      delay_ms: 10,
      status: 503,
      code: "internal_error",
      reason: "the gateway is down for a test",
      details: undefined,
    });
    expect(alertsFor(merchant.id)).toEqual([
      [
        "gateway sync gave up; the periodic full sync will retry",
        expect.objectContaining({
          alert: "gateway_sync_failed",
          status: 503,
          reason: "the gateway is down for a test",
        }),
      ],
    ]);
  });

  it("logs a refused push with the gateway's reason and raises an alert, without retrying it", async () => {
    const sync = gatewaySyncService(gatewaySyncRepository(portal.prisma), secretBox(masterKey), {
      retryDelaysMs: [10, 10],
    });
    sync.configure(config());
    const merchant = await pushedMerchant();
    refusing.add(merchant.id);
    sync.changed(merchant.id);
    await until(() => alertsFor(merchant.id).length > 0);
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
    await sync.stop();
  });

  it("pushes a refused page of the full sync merchant by merchant, so one refusal holds back no other", async () => {
    const refused = await pushedMerchant();
    const fine = await pushedMerchant();
    refusing.add(refused.id);
    const before = gateway.received.length;
    const sync = gatewaySyncService(gatewaySyncRepository(portal.prisma), secretBox(masterKey));
    sync.configure(config());
    await sync.fullSync();
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
    expect(alertsFor(fine.id)).toHaveLength(1);
    await sync.stop();
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
    const inactive = (r: Received) =>
      r.body.merchants[0]?.stores.some(
        (s: { store_id: number; is_active: boolean }) => s.store_id === store.id && !s.is_active,
      );
    await until(() => gateway.received.some(inactive));
    expect(gateway.received.find(inactive)!.body.merchants[0].stores[0]).toEqual({
      store_id: store.id,
      store_code: store.code,
      is_active: false,
      provider_configs: [{ provider_code: "sandbox", credentials: { merchant_id: "m-1" }, is_active: false }],
    });
  });

  it("lets the caller of sync() see the gateway's refusal, without retrying", async () => {
    const merchant = await newMerchant();
    const ofMerchant = () => gateway.received.filter((r) => r.body.merchants[0]?.merchant_id === merchant.id).length;
    await until(() => ofMerchant() === 1);
    failures = 1;
    await expect(portal.gatewaySync.sync([merchant.id])).rejects.toThrow("the gateway answered 503");
    await portal.gatewaySync.sync([merchant.id]);
    expect(ofMerchant()).toBe(3);
  });

  it("syncs every merchant at start, without waiting for the interval", async () => {
    const before = gateway.received.length;
    const all = (await portal.prisma.merchant.findMany({ select: { id: true } })).map((m) => m.id);
    const synced = () =>
      new Set(
        gateway.received
          .slice(before)
          .flatMap((r) => r.body.merchants.map((m: { merchant_id: number }) => m.merchant_id)),
      );
    const sync = gatewaySyncService(gatewaySyncRepository(portal.prisma), secretBox(masterKey));
    sync.configure(config());
    sync.start(60 * 60 * 1000);
    await until(() => all.every((id) => synced().has(id)));
    await sync.stop();
  });

  it("repeats the full sync periodically, and stops", async () => {
    const before = gateway.received.length;
    const [first] = (await portal.prisma.merchant.findMany({ select: { id: true }, orderBy: { id: "asc" } })).map(
      (m) => m.id,
    );
    const runs = () =>
      gateway.received
        .slice(before)
        .filter((r) => r.body.merchants.some((m: { merchant_id: number }) => m.merchant_id === first)).length;
    portal.gatewaySync.start(50);
    await until(() => runs() >= 3);
    await portal.gatewaySync.stop();
    const stopped = gateway.received.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(gateway.received.length).toBe(stopped);
  });
});
