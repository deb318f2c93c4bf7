import { randomBytes } from "node:crypto";
import type { Caller, Role } from "@pos-cloud/common";
import { generate } from "otplib";
import { openPortal, type PortalDeps } from "../../subgraphs/portal/src/index";
import type { UserInput } from "../../subgraphs/portal/src/modules/users";
import { isolatedStorage } from "./databases";
import { uniqueCode } from "./environment";
import { operator } from "./portal-seed";

export const PASSWORD = "correct horse battery staple";
export const PIN = "482913";

/** A portal on storage of its own with a clock the test moves. */
export async function portalWithClock(start = new Date("2026-03-01T09:00:00Z")) {
  const clock = { now: start };
  const storage = await isolatedStorage(["portal"]);
  const sent: { channel: string; to: string; text: string }[] = [];
  const portal: PortalDeps = await openPortal({
    url: storage.urls.portal,
    masterKey: randomBytes(32),
    clock: () => clock.now,
    messages: { transport: async (message) => void sent.push(message) },
  });
  return {
    portal,
    clock,
    sent,
    advance: (ms: number) => {
      clock.now = new Date(clock.now.getTime() + ms);
    },
    close: async () => {
      await portal.close();
      await storage.drop();
    },
  };
}

/** A PSP, merchant, area and store of their own, and a way to add users of any tier to them. */
export async function seedTenant(portal: PortalDeps) {
  const psp = await portal.tenants.createPsp(operator, { code: uniqueCode("PSP"), name: "PSP" });
  const merchant = await portal.tenants.createMerchant(operator, {
    psp_id: psp.id,
    code: uniqueCode("M"),
    name: "Merchant",
  });
  const store = await portal.tenants.createStore(operator, { merchant_id: merchant.id, code: "S-042", name: "Store" });
  const otherStore = await portal.tenants.createStore(operator, {
    merchant_id: merchant.id,
    code: "S-077",
    name: "Other",
  });
  const area = await portal.areas.createUnchecked(merchant.id, "Area");
  await portal.areas.assignStoreUnchecked(store.id, area.id);
  const place: Record<Role, UserInput> = {
    SYSTEM_OP: {},
    PSP_ADMIN: { psp_id: psp.id },
    MERCHANT_ADMIN: { merchant_id: merchant.id },
    AREA_MANAGER: { area_id: area.id },
    STORE_MANAGER: { store_id: store.id },
    STAFF_LEADER: { store_id: store.id },
    STAFF: { store_id: store.id },
  };
  const user = (role: Role, extra: UserInput = {}) => {
    const secret = role === "STAFF_LEADER" || role === "STAFF" ? { pin: PIN } : { password: PASSWORD };
    return portal.users.createUser({ role, ...place[role], ...secret, ...extra });
  };
  return { psp, merchant, store, otherStore, area, user };
}

/** The caller a user's access token would give. */
export const callerOf = (user: {
  id: string;
  role: string;
  psp_id: number | null;
  merchant_id: number | null;
  area_id: string | null;
  store_id: number | null;
}): Caller => ({
  type: "user",
  id: user.id,
  role: user.role,
  pspId: user.psp_id ?? undefined,
  merchantId: user.merchant_id ?? undefined,
  areaId: user.area_id ?? undefined,
  storeId: user.store_id ?? undefined,
  scopes: [],
  ip: "198.51.100.7",
  userAgent: "vitest",
});

export const totpCode = (secret: string, at: Date) => generate({ secret, epoch: Math.floor(at.getTime() / 1000) });

/** A login id of the same shape as a user's that no user has (the few users of a test do not end in ZZZ or YYY). */
export const unusedLoginId = (loginId: string) => loginId.replace(/...$/, (last) => (last === "ZZZ" ? "YYY" : "ZZZ"));
