import { describe, expect, it } from "vitest";
import {
  canReach,
  partnerIdOf,
  reachableStoreReference,
  reachOf,
  requireDevice,
  requireOperator,
  requireService,
  requireTier,
  requireUser,
} from "./access";
import { anonymous, type Caller } from "./caller";

const user = (role: string, scope: Partial<Caller> = {}): Caller => ({
  type: "user",
  id: "u",
  role,
  scopes: [],
  ...scope,
});
const device = (scope: Partial<Caller> = {}): Caller => ({
  type: "device",
  id: "d",
  merchantId: 10,
  storeId: 100,
  scopes: [],
  ...scope,
});
const partner: Caller = { type: "partner", id: "7", scopes: [] };
const service: Caller = { type: "service", id: "edge", scopes: [] };

const store = { pspId: 1, merchantId: 10, areaId: "area-a", storeId: 100 };
const otherStoreSameArea = { ...store, storeId: 101 };
const otherMerchant = { pspId: 1, merchantId: 11, areaId: "area-x", storeId: 200 };
const otherPsp = { pspId: 2, merchantId: 20, storeId: 300 };

describe("canReach", () => {
  it("lets each tier reach exactly its part of the hierarchy", () => {
    const cases: [Caller, boolean[]][] = [
      [user("SYSTEM_OP"), [true, true, true, true]],
      [user("PSP_ADMIN", { pspId: 1 }), [true, true, true, false]],
      [user("MERCHANT_ADMIN", { pspId: 1, merchantId: 10 }), [true, true, false, false]],
      [user("AREA_MANAGER", { pspId: 1, merchantId: 10, areaId: "area-a" }), [true, true, false, false]],
      [user("STORE_MANAGER", { pspId: 1, merchantId: 10, storeId: 100 }), [true, false, false, false]],
      [user("STAFF", { pspId: 1, merchantId: 10, storeId: 100 }), [true, false, false, false]],
      [device(), [true, false, false, false]],
      [anonymous, [false, false, false, false]],
      [partner, [false, false, false, false]],
      [service, [false, false, false, false]],
    ];
    for (const [caller, expected] of cases) {
      expect([store, otherStoreSameArea, otherMerchant, otherPsp].map((path) => canReach(caller, path))).toEqual(
        expected,
      );
    }
  });

  it("does not let an area manager reach the merchant itself, only stores of its area", () => {
    const manager = user("AREA_MANAGER", { pspId: 1, merchantId: 10, areaId: "area-a" });
    expect(canReach(manager, { pspId: 1, merchantId: 10 })).toBe(false);
    expect(canReach(manager, { ...store, areaId: null })).toBe(false);
  });

  it("lets a token without the id its tier needs reach nothing", () => {
    expect(reachOf(user("PSP_ADMIN"))).toEqual({ level: "nothing" });
    expect(reachOf(user("AREA_MANAGER", { merchantId: 10 }))).toEqual({ level: "nothing" });
    expect(reachOf(user("STAFF", { storeId: 100 }))).toEqual({ level: "nothing" });
    expect(reachOf(device({ storeId: undefined }))).toEqual({ level: "nothing" });
    expect(canReach(device({ merchantId: 11 }), store)).toBe(false);
  });

  it("does not let a role name it does not know reach anything", () => {
    expect(canReach(user("ROOT"), store)).toBe(false);
  });
});

describe("checks", () => {
  it("refuse the anonymous caller with 401 before anything else", () => {
    for (const check of [
      () => reachOf(anonymous),
      () => requireTier(anonymous, 6),
      () => requireUser(anonymous),
      () => requireDevice(anonymous),
      () => partnerIdOf(anonymous),
      () => requireOperator(anonymous),
    ]) {
      expect(check).toThrow(expect.objectContaining({ code: "unauthorized" }));
    }
  });

  it("requireTier: the tier first, then the place; a device reads as tier 6", () => {
    const manager = user("STORE_MANAGER", { pspId: 1, merchantId: 10, storeId: 100 });
    expect(() => requireTier(manager, 4, store)).not.toThrow();
    expect(() => requireTier(manager, 2, store)).toThrow(expect.objectContaining({ code: "forbidden" }));
    expect(() => requireTier(manager, 4, otherStoreSameArea)).toThrow(expect.objectContaining({ code: "forbidden" }));
    expect(() => requireTier(device(), 6, store)).not.toThrow();
    expect(() => requireTier(device(), 4, store)).toThrow(expect.objectContaining({ code: "forbidden" }));
    expect(() => requireTier(partner, 6)).toThrow(expect.objectContaining({ code: "forbidden" }));
  });

  it("requireDevice: the calling device with the scope asked for", () => {
    const updater = device({ scopes: ["app:update"] });
    expect(() => requireDevice(updater, { id: "d", scope: "app:update" })).not.toThrow();
    expect(() => requireDevice(updater, { id: "other" })).toThrow(/calling device/);
    expect(() => requireDevice(device(), { scope: "app:update" })).toThrow(/app:update/);
    expect(() => requireDevice(user("SYSTEM_OP"))).toThrow(expect.objectContaining({ code: "forbidden" }));
  });

  it("partnerIdOf, requireService and requireOperator each admit their caller only", () => {
    expect(partnerIdOf(partner)).toBe(7);
    expect(() => partnerIdOf(user("SYSTEM_OP"))).toThrow(expect.objectContaining({ code: "unauthorized" }));
    expect(() => requireService(service)).not.toThrow();
    expect(() => requireService(user("SYSTEM_OP"))).toThrow(expect.objectContaining({ code: "forbidden" }));
    expect(() => requireOperator(service)).not.toThrow();
    expect(() => requireOperator(user("SYSTEM_OP"))).not.toThrow();
    expect(() => requireOperator(user("PSP_ADMIN", { pspId: 1 }))).toThrow(/system operator/);
    expect(() => requireOperator(partner)).toThrow(expect.objectContaining({ code: "forbidden" }));
  });
});

describe("reachableStoreReference", () => {
  const reference = { id: "100", psp_id: 1, merchant_id: 10, area_id: "area-a" };

  it("names the store when the caller reaches the place the reference carries", () => {
    expect(reachableStoreReference(user("AREA_MANAGER", { merchantId: 10, areaId: "area-a" }), reference)).toEqual({
      id: 100,
      merchantId: 10,
    });
  });

  it("refuses a caller of another tenant, and a reference without its place", () => {
    const elsewhere = user("PSP_ADMIN", { pspId: 2 });
    expect(() => reachableStoreReference(elsewhere, reference)).toThrow(expect.objectContaining({ code: "forbidden" }));
    expect(() => reachableStoreReference(user("SYSTEM_OP"), { id: 100 })).toThrow(
      expect.objectContaining({ code: "forbidden" }),
    );
    expect(() => reachableStoreReference(anonymous, reference)).toThrow(
      expect.objectContaining({ code: "unauthorized" }),
    );
  });
});
