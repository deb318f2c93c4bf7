import { describe, expect, it } from "vitest";
import {
  canReach,
  differencesReach,
  keyReachesStore,
  partnerIdOf,
  reachableStoreReference,
  reachOf,
  requireAccountingExportAdmin,
  requireDevice,
  requireGrantAccess,
  requireKeyStore,
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
      () => partnerIdOf(anonymous, null),
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
    expect(partnerIdOf(partner, "payment_intents:write")).toBe(7);
    expect(() => partnerIdOf(user("SYSTEM_OP"), null)).toThrow(expect.objectContaining({ code: "unauthorized" }));
    expect(() => requireService(service)).not.toThrow();
    expect(() => requireService(user("SYSTEM_OP"))).toThrow(expect.objectContaining({ code: "forbidden" }));
    expect(() => requireOperator(service)).not.toThrow();
    expect(() => requireOperator(user("SYSTEM_OP"))).not.toThrow();
    expect(() => requireOperator(user("PSP_ADMIN", { pspId: 1 }))).toThrow(/system operator/);
    expect(() => requireOperator(partner)).toThrow(expect.objectContaining({ code: "forbidden" }));
  });

  it("differencesReach is a merchant admin's and above's reach, nobody else's", () => {
    expect(differencesReach(user("SYSTEM_OP"))).toEqual({ level: "platform" });
    expect(differencesReach(user("PSP_ADMIN", { pspId: 1 }))).toEqual({ level: "psp", pspId: 1 });
    expect(differencesReach(user("MERCHANT_ADMIN", { pspId: 1, merchantId: 10 }))).toEqual({
      level: "merchant",
      merchantId: 10,
    });
    for (const caller of [
      user("AREA_MANAGER", { merchantId: 10, areaId: "a" }),
      user("STORE_MANAGER", { merchantId: 10, storeId: 100 }),
      device({ merchantId: 10, storeId: 100 }),
      partner,
      service,
      anonymous,
    ])
      expect(differencesReach(caller), JSON.stringify(caller)).toBeUndefined();
  });

  it("requireAccountingExportAdmin admits a system operator and the merchant's own admin only", () => {
    expect(() => requireAccountingExportAdmin(user("SYSTEM_OP"), 10)).not.toThrow();
    expect(() => requireAccountingExportAdmin(user("MERCHANT_ADMIN", { pspId: 1, merchantId: 10 }), 10)).not.toThrow();
    for (const caller of [
      user("MERCHANT_ADMIN", { pspId: 1, merchantId: 11 }),
      user("PSP_ADMIN", { pspId: 1 }),
      user("STORE_MANAGER", { merchantId: 10, storeId: 100 }),
      device({ merchantId: 10, storeId: 100 }),
      partner,
      service,
    ])
      expect(() => requireAccountingExportAdmin(caller, 10), JSON.stringify(caller)).toThrow(
        expect.objectContaining({ code: "forbidden" }),
      );
    expect(() => requireAccountingExportAdmin(anonymous, 10)).toThrow(
      expect.objectContaining({ code: "unauthorized" }),
    );
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

describe("a restricted API key", () => {
  const reader: Caller = { ...partner, scopes: ["payment_intents:read"] };
  const oneStore: Caller = { ...partner, storeIds: [100] };

  it("calls only the operations of its permissions, and is refused the others naming the one it lacks", () => {
    expect(partnerIdOf(reader, "payment_intents:read")).toBe(7);
    expect(() => partnerIdOf(reader, "payment_intents:write")).toThrow(
      expect.objectContaining({ code: "missing_permission", details: { permission: "payment_intents:write" } }),
    );
    expect(() => partnerIdOf(reader, "sync:write")).toThrow(
      expect.objectContaining({ details: { permission: "sync:write" } }),
    );
    expect(partnerIdOf(reader, null)).toBe(7);
  });

  it("without permissions calls every partner operation", () => {
    for (const permission of ["payment_intents:write", "refunds:write", "sync:write", "webhooks:manage"] as const)
      expect(partnerIdOf(partner, permission)).toBe(7);
  });

  it("names only its stores; a key without stores, and every other caller, names any", () => {
    expect(keyReachesStore(oneStore, 100)).toBe(true);
    expect(keyReachesStore(oneStore, 101)).toBe(false);
    expect(() => requireKeyStore(oneStore, 101)).toThrow(
      expect.objectContaining({ code: "forbidden", details: { field: "merchant_store_id" } }),
    );
    expect(keyReachesStore(partner, 101)).toBe(true);
    expect(keyReachesStore(user("SYSTEM_OP"), 101)).toBe(true);
  });
});

describe("requireGrantAccess", () => {
  const merchant = { id: 10, psp_id: 1 };
  const may = (
    caller: Caller,
    action: "read" | "revoke" | "grant",
    of: { id: number; psp_id: number | null } = merchant,
  ) => {
    try {
      requireGrantAccess(caller, of, action);
      return true;
    } catch {
      return false;
    }
  };

  it("lets L0 and the merchant's PSP admin grant, and its merchant admin only read and revoke", () => {
    const l2 = user("MERCHANT_ADMIN", { pspId: 1, merchantId: 10 });
    expect(may(user("SYSTEM_OP"), "grant")).toBe(true);
    expect(may(user("PSP_ADMIN", { pspId: 1 }), "grant")).toBe(true);
    expect(may(user("PSP_ADMIN", { pspId: 2 }), "read")).toBe(false);
    expect([may(l2, "read"), may(l2, "revoke"), may(l2, "grant")]).toEqual([true, true, false]);
    expect(may(user("MERCHANT_ADMIN", { pspId: 1, merchantId: 11 }), "read")).toBe(false);
    expect(may(user("STORE_MANAGER", { merchantId: 10, storeId: 100 }), "read")).toBe(false);
    expect(may(partner, "read")).toBe(false);
    expect(may(device(), "read")).toBe(false);
  });

  it("leaves a merchant not yet placed under a PSP to system operators", () => {
    const unplaced = { id: 10, psp_id: null };
    expect(may(user("SYSTEM_OP"), "grant", unplaced)).toBe(true);
    expect(may(user("PSP_ADMIN", { pspId: 1 }), "grant", unplaced)).toBe(false);
    expect(may(user("MERCHANT_ADMIN", { pspId: 1, merchantId: 10 }), "revoke", unplaced)).toBe(false);
  });
});
