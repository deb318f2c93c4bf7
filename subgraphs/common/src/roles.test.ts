import { describe, expect, it } from "vitest";
import type { Caller } from "./caller";
import { canReach } from "./roles";

const user = (role: string, scope: Partial<Caller> = {}): Caller => ({
  type: "user",
  id: "u",
  role,
  scopes: [],
  ...scope,
});
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
      [{ type: "device", id: "d", merchantId: 10, storeId: 100, scopes: [] }, [true, false, false, false]],
      [{ type: "anonymous", scopes: [] }, [false, false, false, false]],
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

  it("does not let a role name it does not know reach anything", () => {
    expect(canReach(user("ROOT"), store)).toBe(false);
  });
});
