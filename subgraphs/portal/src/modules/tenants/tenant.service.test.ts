import { testStorage, uniqueCode } from "@pos-cloud/test-support/environment";
import { type Branch, human, operator, seedBranch } from "@pos-cloud/test-support/portal-seed";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PortalDeps } from "../../context";
import { openPortal } from "../../index";
import { present } from "./tenant.service";

type Tier = keyof Branch["callers"];
const tiers: Tier[] = ["L0", "L1", "L2", "L4", "L5", "L6"];

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => "ok",
    (error: { code?: string }) => error.code ?? String(error),
  );

describe("tenant service", () => {
  let portal: PortalDeps;
  let home: Branch;
  let away: Branch;

  beforeAll(async () => {
    portal = await openPortal(testStorage("portal"));
    home = await seedBranch(portal);
    away = await seedBranch(portal);
  });
  afterAll(() => portal?.close());

  describe("scope matrix: each tier inside and outside its scope", () => {
    const expected: Record<string, Record<Tier, string>> = {
      "read own psp": { L0: "ok", L1: "ok", L2: "forbidden", L4: "forbidden", L5: "forbidden", L6: "forbidden" },
      "read other psp": {
        L0: "ok",
        L1: "forbidden",
        L2: "forbidden",
        L4: "forbidden",
        L5: "forbidden",
        L6: "forbidden",
      },
      "read own merchant": { L0: "ok", L1: "ok", L2: "ok", L4: "forbidden", L5: "forbidden", L6: "forbidden" },
      "read other merchant": {
        L0: "ok",
        L1: "forbidden",
        L2: "forbidden",
        L4: "forbidden",
        L5: "forbidden",
        L6: "forbidden",
      },
      "read own store": { L0: "ok", L1: "ok", L2: "ok", L4: "ok", L5: "ok", L6: "ok" },
      "read sibling store": { L0: "ok", L1: "ok", L2: "ok", L4: "forbidden", L5: "forbidden", L6: "forbidden" },
      "read other store": {
        L0: "ok",
        L1: "forbidden",
        L2: "forbidden",
        L4: "forbidden",
        L5: "forbidden",
        L6: "forbidden",
      },
      "update own store": { L0: "ok", L1: "ok", L2: "ok", L4: "ok", L5: "forbidden", L6: "forbidden" },
      "update other store": {
        L0: "ok",
        L1: "forbidden",
        L2: "forbidden",
        L4: "forbidden",
        L5: "forbidden",
        L6: "forbidden",
      },
      "create store in own merchant": {
        L0: "ok",
        L1: "ok",
        L2: "ok",
        L4: "forbidden",
        L5: "forbidden",
        L6: "forbidden",
      },
      "create store in other merchant": {
        L0: "ok",
        L1: "forbidden",
        L2: "forbidden",
        L4: "forbidden",
        L5: "forbidden",
        L6: "forbidden",
      },
      "create merchant in own psp": {
        L0: "ok",
        L1: "ok",
        L2: "forbidden",
        L4: "forbidden",
        L5: "forbidden",
        L6: "forbidden",
      },
      "update own merchant": { L0: "ok", L1: "ok", L2: "ok", L4: "forbidden", L5: "forbidden", L6: "forbidden" },
      "deactivate own merchant's store": {
        L0: "ok",
        L1: "ok",
        L2: "ok",
        L4: "forbidden",
        L5: "forbidden",
        L6: "forbidden",
      },
      "create psp": { L0: "ok", L1: "forbidden", L2: "forbidden", L4: "forbidden", L5: "forbidden", L6: "forbidden" },
    };
    const operations: Record<string, (tier: Tier) => Promise<unknown>> = {
      "read own psp": (t) => portal.tenants.getPsp(home.callers[t], home.psp.id),
      "read other psp": (t) => portal.tenants.getPsp(home.callers[t], away.psp.id),
      "read own merchant": (t) => portal.tenants.getMerchant(home.callers[t], home.merchant.id),
      "read other merchant": (t) => portal.tenants.getMerchant(home.callers[t], away.merchant.id),
      "read own store": (t) => portal.tenants.getStore(home.callers[t], home.store.id),
      "read sibling store": (t) => portal.tenants.getStore(home.callers[t], home.otherStore.id),
      "read other store": (t) => portal.tenants.getStore(home.callers[t], away.store.id),
      "update own store": (t) => portal.tenants.updateStore(home.callers[t], home.store.id, { name: `by ${t}` }),
      "update other store": (t) => portal.tenants.updateStore(home.callers[t], away.store.id, { name: `by ${t}` }),
      "create store in own merchant": (t) =>
        portal.tenants.createStore(home.callers[t], { merchant_id: home.merchant.id, code: uniqueCode("S"), name: t }),
      "create store in other merchant": (t) =>
        portal.tenants.createStore(home.callers[t], { merchant_id: away.merchant.id, code: uniqueCode("S"), name: t }),
      "create merchant in own psp": (t) =>
        portal.tenants.createMerchant(home.callers[t], { psp_id: home.psp.id, code: uniqueCode("M"), name: t }),
      "update own merchant": (t) => portal.tenants.updateMerchant(home.callers[t], home.merchant.id, { name: t }),
      "deactivate own merchant's store": async (t) => {
        const store = await portal.tenants.createStore(operator, {
          merchant_id: home.merchant.id,
          code: uniqueCode("S"),
          name: "to close",
        });
        return portal.tenants.deactivateStore(home.callers[t], store.id);
      },
      "create psp": (t) => portal.tenants.createPsp(home.callers[t], { code: uniqueCode("P"), name: t }),
    };
    for (const [name, byTier] of Object.entries(expected)) {
      it(name, async () => {
        const outcomes = Object.fromEntries(
          await Promise.all(tiers.map(async (t) => [t, await code(operations[name]!(t))] as const)),
        );
        expect(outcomes).toEqual(byTier);
      });
    }
  });

  it("lists only what the caller may see, paginated", async () => {
    const ids = (page: { nodes: { id: number }[] }) => page.nodes.map((row) => row.id);
    const stores = await portal.tenants.listStores(home.callers.L2, {}, { limit: 100 });
    expect(ids(stores)).toEqual(expect.arrayContaining([home.store.id, home.otherStore.id]));
    expect(ids(stores)).not.toContain(away.store.id);
    expect(ids(await portal.tenants.listStores(home.callers.L4, {}))).toEqual([home.store.id]);
    const merchants = ids(await portal.tenants.listMerchants(home.callers.L1, {}, { limit: 100 }));
    expect(merchants).toContain(home.merchant.id);
    expect(merchants).not.toContain(away.merchant.id);
    expect(await portal.tenants.listMerchants(home.callers.L4, {})).toMatchObject({ nodes: [], total_count: 0 });
    expect(ids(await portal.tenants.listPsps(home.callers.L1))).toEqual([home.psp.id]);
    expect(await portal.tenants.listPsps(home.callers.L2)).toMatchObject({ nodes: [], total_count: 0 });
    const page = await portal.tenants.listStores(home.callers.L2, {}, { limit: 1, offset: 1 });
    expect(ids(page)).toEqual([stores.nodes[1]!.id]);
    expect(page).toMatchObject({
      total_count: stores.total_count,
      page_info: { has_next_page: stores.total_count > 2 },
    });
    await expect(portal.tenants.listStores(operator, {}, { limit: 101 })).rejects.toMatchObject({
      code: "invalid_request",
      details: { field: "limit" },
    });
  });

  it("reads one store (on the driver) as Prisma's client reads it", async () => {
    await portal.tenants.updateStore(operator, home.otherStore.id, {
      latitude: 35.68,
      tax_rate: 8.5,
      operating_hours: { mon: [{ open: "09:00", close: "21:00" }] },
      enabled_payment_methods: ["credit_card"],
      provider_credentials: { paypay: { merchant_id: "pp-2", api_secret: "s3cret" } },
    });
    for (const id of [home.store.id, home.otherStore.id]) {
      const prisma = await portal.prisma.store.findUniqueOrThrow({
        where: { id },
        include: { merchant: { select: { psp_id: true, terminal_limit_per_store: true } } },
      });
      expect(await portal.tenants.getStore(operator, id)).toEqual(present(prisma));
    }
  });

  it("refuses a code taken at its level with 409 naming the field, and allows it elsewhere", async () => {
    const input = { merchant_id: home.merchant.id, code: home.store.code, name: "dup" };
    await expect(portal.tenants.createStore(operator, input)).rejects.toMatchObject({
      code: "conflict",
      details: { field: "code" },
    });
    const elsewhere = await portal.tenants.createStore(operator, { ...input, merchant_id: away.merchant.id });
    expect(elsewhere.code).toBe(home.store.code);
  });

  it("validates fields with a 400 naming the field and changes nothing", async () => {
    const bad = [
      [{ code: "ok-code", name: "x", merchant_id: home.merchant.id, tax_rate: 120 }, "tax_rate"],
      [
        { code: "ok-code", name: "x", merchant_id: home.merchant.id, printer_config: { address: "p", port: 0 } },
        "printer_config.port",
      ],
      [{ code: "has space", name: "x", merchant_id: home.merchant.id }, "code"],
      [{ code: "ok-code", name: "x", merchant_id: home.merchant.id, unknown: 1 }, "unknown"],
    ] as const;
    for (const [input, field] of bad) {
      await expect(portal.tenants.createStore(operator, input)).rejects.toMatchObject({
        code: "invalid_request",
        details: { field },
      });
    }
    const stores = await portal.tenants.listStores(operator, { merchant_id: home.merchant.id }, { limit: 100 });
    expect(stores.nodes.map((store) => store.code)).not.toContain("ok-code");
  });

  it("seals provider credentials and never returns them", async () => {
    const store = await portal.tenants.updateStore(home.callers.L2, home.store.id, {
      provider_credentials: { paypay: { merchant_id: "pp-1", api_secret: "s3cret" } },
    });
    expect(store.has_provider_credentials).toBe(true);
    expect(JSON.stringify(store)).not.toContain("s3cret");
    const row = await portal.prisma.store.findUniqueOrThrow({ where: { id: home.store.id } });
    expect(row.provider_credentials).not.toContain("s3cret");
    await expect(
      portal.tenants.updateStore(home.callers.L4, home.store.id, { provider_credentials: { x: { a: "b" } } }),
    ).rejects.toMatchObject({ code: "forbidden" });
  });

  it("deactivates rather than deletes", async () => {
    const merchant = await portal.tenants.createMerchant(operator, {
      psp_id: home.psp.id,
      code: uniqueCode("M"),
      name: "closing",
    });
    expect((await portal.tenants.deactivateMerchant(home.callers.L1, merchant.id)).status).toBe("inactive");
    expect((await portal.tenants.getMerchant(operator, merchant.id)).status).toBe("inactive");
    await expect(portal.tenants.getMerchant(operator, 99_999_999)).rejects.toMatchObject({ code: "not_found" });
  });

  it("lets a device read its own store only", async () => {
    const device = {
      type: "device" as const,
      id: "d",
      storeId: home.store.id,
      merchantId: home.merchant.id,
      scopes: [],
    };
    expect((await portal.tenants.getStore(device, home.store.id)).id).toBe(home.store.id);
    await expect(portal.tenants.getStore(device, home.otherStore.id)).rejects.toMatchObject({ code: "forbidden" });
    await expect(portal.tenants.updateStore(device, home.store.id, { name: "x" })).rejects.toMatchObject({
      code: "forbidden",
    });
    expect(human).toBeDefined();
  });
});
