import { callerOf, portalWithClock, seedTenant } from "@pos-cloud/test-support/identity";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("areas", () => {
  let env: Awaited<ReturnType<typeof portalWithClock>>;
  let tenant: Awaited<ReturnType<typeof seedTenant>>;

  beforeAll(async () => {
    env = await portalWithClock();
    tenant = await seedTenant(env.portal);
  });
  afterAll(() => env?.close());

  it("lets a merchant admin make areas and move its stores between them, and the area manager follows", async () => {
    const admin = callerOf(await tenant.user("MERCHANT_ADMIN"));
    const area = await env.portal.areas.create(admin, { merchant_id: tenant.merchant.id, name: " North " });
    expect(area).toMatchObject({ merchant_id: tenant.merchant.id, name: "North" });
    await env.portal.areas.assignStore(admin, tenant.otherStore.id, area.id);
    expect(await env.portal.areas.storeIds(area.id)).toEqual([tenant.otherStore.id]);
    const manager = callerOf(await tenant.user("AREA_MANAGER", { area_id: area.id }));
    expect((await env.portal.tenants.listStores(manager, {})).nodes.map((store) => store.id)).toEqual([
      tenant.otherStore.id,
    ]);
    expect((await env.portal.areas.list(manager)).map((a) => a.id)).toEqual([area.id]);
    expect((await env.portal.areas.list(admin)).map((a) => a.id)).toEqual(
      expect.arrayContaining([area.id, tenant.area.id]),
    );
  });

  it("refuses area changes below L2, across merchants, and areas of another merchant", async () => {
    const manager = callerOf(await tenant.user("STORE_MANAGER"));
    const admin = callerOf(await tenant.user("MERCHANT_ADMIN"));
    const other = await seedTenant(env.portal);
    await expect(
      env.portal.areas.create(manager, { merchant_id: tenant.merchant.id, name: "A" }),
    ).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(env.portal.areas.create(admin, { merchant_id: other.merchant.id, name: "A" })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(env.portal.areas.assignStore(admin, tenant.store.id, other.area.id)).rejects.toMatchObject({
      details: { field: "area_id" },
    });
    expect(await env.portal.areas.list(manager)).toEqual([]);
  });
});
