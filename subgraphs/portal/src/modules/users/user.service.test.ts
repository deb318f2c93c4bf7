import type { Role } from "@pos-cloud/common";
import { callerOf, PASSWORD, PIN, portalWithClock, seedTenant } from "@pos-cloud/test-support/identity";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loginIdFormats, merchantPart, storePart } from "./login-id.rules";

describe("users", () => {
  let env: Awaited<ReturnType<typeof portalWithClock>>;
  let tenant: Awaited<ReturnType<typeof seedTenant>>;

  beforeAll(async () => {
    env = await portalWithClock();
    tenant = await seedTenant(env.portal);
  });
  afterAll(() => env?.close());

  it("generates login ids in the spec's format for every tier", async () => {
    const expected: Record<Role, RegExp> = {
      SYSTEM_OP: /^SYS-[A-Z0-9]{4}$/,
      PSP_ADMIN: /^PSP-[A-Z0-9]{6}$/,
      MERCHANT_ADMIN: /^MCH-[A-Z0-9]{8}$/,
      AREA_MANAGER: new RegExp(`^ARA-${merchantPart(tenant.merchant.id)}-[A-Z0-9]{3}$`),
      STORE_MANAGER: new RegExp(`^STR-${merchantPart(tenant.merchant.id)}-[A-Z0-9]{3}$`),
      STAFF_LEADER: /^SLR-042-[A-Z0-9]{3}$/,
      STAFF: /^STF-042-[A-Z0-9]{3}$/,
    };
    for (const role of Object.keys(expected) as Role[]) {
      const user = await tenant.user(role);
      expect(user.login_id).toMatch(expected[role]);
      expect(user.login_id).toMatch(loginIdFormats[role]);
    }
  });

  it("derives the merchant and store parts from the merchant id and the store code", () => {
    expect(merchantPart(7)).toBe("00000007");
    expect(storePart("001")).toBe("001");
    expect(storePart("shibuya-12")).toBe("A12");
    expect(storePart("7")).toBe("007");
  });

  it("stores secrets only as scrypt hashes and the TOTP secret sealed", async () => {
    const manager = await tenant.user("STORE_MANAGER");
    const staff = await tenant.user("STAFF");
    const rows = await env.portal.prisma.user.findMany({ where: { id: { in: [manager.id, staff.id] } } });
    const all = JSON.stringify(rows);
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(manager.totp_secret);
    expect(rows.find((row) => row.id === manager.id)!.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(rows.find((row) => row.id === staff.id)!.pin_hash).toMatch(/^scrypt\$/);
    expect(rows.find((row) => row.id === staff.id)!.pin_hash).not.toContain(PIN);
  });

  it("enforces MFA for L0 to L3 and no MFA for PIN tiers", async () => {
    await expect(tenant.user("AREA_MANAGER", { mfa_enabled: false })).rejects.toMatchObject({
      details: { field: "mfa_enabled", constraint: "mandatory" },
    });
    expect(await tenant.user("STORE_MANAGER", { mfa_enabled: false })).toMatchObject({ mfa_enabled: false });
    expect(await tenant.user("STAFF")).toMatchObject({ mfa_enabled: false, mfa_channel: null });
    await expect(tenant.user("STAFF", { pin: "12345" })).rejects.toMatchObject({ details: { field: "pin" } });
    await expect(tenant.user("STORE_MANAGER", { password: "short" })).rejects.toMatchObject({
      details: { field: "password" },
    });
  });

  it("lets a caller create only users strictly below its tier, inside its reach", async () => {
    const admin = await tenant.user("MERCHANT_ADMIN");
    const area = await tenant.user("AREA_MANAGER");
    const manager = await tenant.user("STORE_MANAGER");
    const created = await env.portal.users.create(callerOf(admin), {
      role: "STAFF",
      store_id: tenant.store.id,
      pin: PIN,
    });
    expect(created).toMatchObject({ role: "STAFF", store_id: tenant.store.id, merchant_id: tenant.merchant.id });
    await expect(
      env.portal.users.create(callerOf(manager), {
        role: "STORE_MANAGER",
        store_id: tenant.store.id,
        password: PASSWORD,
      }),
    ).rejects.toMatchObject({ code: "forbidden" });
    // The other store is in no area, so the area manager does not reach it.
    await expect(
      env.portal.users.create(callerOf(area), { role: "STAFF", store_id: tenant.otherStore.id, pin: PIN }),
    ).rejects.toMatchObject({ code: "forbidden" });
    const other = await seedTenant(env.portal);
    await expect(
      env.portal.users.create(callerOf(admin), { role: "STAFF", store_id: other.store.id, pin: PIN }),
    ).rejects.toMatchObject({ code: "forbidden" });
  });

  it("lists only users below the caller inside its reach", async () => {
    const manager = await tenant.user("STORE_MANAGER");
    const staff = await tenant.user("STAFF");
    const other = await seedTenant(env.portal);
    const foreign = await other.user("STAFF");
    const seen = (await env.portal.users.list(callerOf(manager), {})).nodes.map((user) => user.id);
    expect(seen).toContain(staff.id);
    expect(seen).not.toContain(manager.id);
    expect(seen).not.toContain(foreign.id);
    const staffOfStore = await env.portal.users.staffOf(callerOf(manager), tenant.store.id);
    expect(staffOfStore.every((user) => user.store_id === tenant.store.id && user.tier > 4)).toBe(true);
  });

  it("never changes a login id, and deletes by deactivating", async () => {
    const admin = await tenant.user("MERCHANT_ADMIN");
    const staff = await tenant.user("STAFF");
    await expect(env.portal.users.update(callerOf(admin), staff.id, { login_id: "STF-XXX-XXX" })).rejects.toMatchObject(
      {
        details: { field: "login_id", constraint: "immutable" },
      },
    );
    const renamed = await env.portal.users.update(callerOf(admin), staff.id, { name: "Aiko" });
    expect(renamed).toMatchObject({ name: "Aiko", login_id: staff.login_id });
    expect(await env.portal.users.deactivate(callerOf(admin), staff.id)).toMatchObject({ status: "inactive" });
    await expect(
      env.portal.auth.pinLogin({ login_id: staff.login_id, pin: PIN }, callerOf(admin)),
    ).rejects.toMatchObject({
      code: "unauthorized",
    });
  });

  it("locks a user until unlocked, ending its sessions; a deactivated user stays deactivated", async () => {
    const manager = await tenant.user("STORE_MANAGER");
    const staff = await tenant.user("STAFF");
    const login = () => env.portal.auth.pinLogin({ login_id: staff.login_id, pin: PIN }, callerOf(manager));
    const { refresh_token } = await login();
    expect(await env.portal.users.lock(callerOf(manager), staff.id)).toMatchObject({ status: "locked" });
    await expect(login()).rejects.toMatchObject({ code: "unauthorized" });
    await expect(env.portal.auth.refresh(refresh_token, callerOf(manager))).rejects.toMatchObject({
      code: "unauthorized",
    });
    await expect(env.portal.users.lock(callerOf(staff), manager.id)).rejects.toMatchObject({ code: "forbidden" });
    expect(await env.portal.users.unlock(callerOf(manager), staff.id)).toMatchObject({ status: "active" });
    await expect(login()).resolves.toMatchObject({ access_token: expect.any(String) });
    await env.portal.users.deactivate(callerOf(manager), staff.id);
    await expect(env.portal.users.lock(callerOf(manager), staff.id)).rejects.toMatchObject({ code: "invalid_state" });
    expect(await env.portal.users.unlock(callerOf(manager), staff.id)).toMatchObject({ status: "inactive" });
  });

  it("resets MFA to a new TOTP secret shown once, for password tiers only", async () => {
    const admin = await tenant.user("MERCHANT_ADMIN");
    const manager = await tenant.user("STORE_MANAGER", { mfa_channel: "sms", phone: "+81312345678" });
    const reset = await env.portal.users.resetMfa(callerOf(admin), manager.id);
    expect(reset).toMatchObject({ mfa_enabled: true, mfa_channel: "totp", totp_secret: expect.any(String) });
    expect((await env.portal.users.get(callerOf(admin), manager.id)).totp_secret).toBeUndefined();
    const again = await env.portal.users.resetMfa(callerOf(admin), manager.id);
    expect(again.totp_secret).not.toBe(reset.totp_secret);
    const staff = await tenant.user("STAFF");
    await expect(env.portal.users.resetMfa(callerOf(admin), staff.id)).rejects.toMatchObject({
      details: { field: "mfa_enabled", constraint: "not_allowed" },
    });
    await expect(env.portal.users.resetMfa(callerOf(manager), admin.id)).rejects.toMatchObject({ code: "forbidden" });
  });

  it("answers ids that cannot exist with a clear 4xx, never a 500", async () => {
    const admin = await tenant.user("MERCHANT_ADMIN");
    await expect(tenant.user("AREA_MANAGER", { area_id: "not-a-uuid" })).rejects.toMatchObject({
      details: { field: "area_id", constraint: "exists" },
    });
    await expect(env.portal.users.get(callerOf(admin), "not-a-uuid")).rejects.toMatchObject({ code: "not_found" });
    const arealess = { ...callerOf(admin), role: "AREA_MANAGER", areaId: "x" };
    expect(await env.portal.users.list(arealess, {})).toMatchObject({ nodes: [], total_count: 0 });
  });
});
