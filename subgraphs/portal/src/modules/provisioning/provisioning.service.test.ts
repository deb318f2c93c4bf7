import { randomBytes } from "node:crypto";
import { isolatedStorage } from "@pos-cloud/test-support/databases";
import { uniqueCode } from "@pos-cloud/test-support/environment";
import { type Branch, operator, seedBranch } from "@pos-cloud/test-support/portal-seed";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PortalDeps } from "../../context";
import { openPortal } from "../../index";
import { ACTIVATION_CODE_LIFETIME_MS, provisioningLimits } from "./provisioning.service";

describe("provisioning and the device lifecycle", () => {
  let now = new Date("2026-03-01T00:00:00Z");
  let portal: PortalDeps;
  let storage: Awaited<ReturnType<typeof isolatedStorage>>;
  let branch: Branch;

  // The clock moves here, so the storage is this suite's own.
  beforeAll(async () => {
    storage = await isolatedStorage(["portal"]);
    portal = await openPortal({ url: storage.urls.portal, masterKey: randomBytes(32), clock: () => now });
    branch = await seedBranch(portal);
  });
  afterAll(async () => {
    await portal?.close();
    await storage?.drop();
  });

  const device = { type: "anonymous" as const, scopes: [], ip: "198.51.100.7" };
  async function generate(serial = uniqueCode("SN"), ip = `203.0.113.${Math.floor(Math.random() * 250)}`) {
    const { publicKey } = await generateKeyPair("ES256");
    const input = {
      serial_number: serial,
      public_key_jwk: await exportJWK(publicKey),
      model: "A920",
      manufacturer: "PAX",
    };
    return { serial, ...(await portal.provisioning.generateActivationCode({ ...device, ip }, input)) };
  }
  const activate = (code: string, caller = branch.callers.L4) =>
    portal.provisioning.activate(caller, { activation_code: code, store_id: branch.store.id });

  it("issues a human-typeable code valid 24 hours, stored only as a hash", async () => {
    const { activation_code, expires_at } = await generate();
    expect(activation_code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(expires_at.getTime() - now.getTime()).toBe(ACTIVATION_CODE_LIFETIME_MS);
    const rows = await portal.prisma.activationCode.findMany();
    expect(JSON.stringify(rows)).not.toContain(activation_code.replace(/-/g, ""));
  });

  it("goes pending, then active with its ids once a store manager activates it", async () => {
    const { activation_code, serial } = await generate();
    expect(await portal.provisioning.activationStatus(device, activation_code)).toEqual({ status: "pending" });
    const activated = await activate(activation_code.toLowerCase());
    expect(activated).toMatchObject({ status: "active", store_id: branch.store.id, merchant_id: branch.merchant.id });
    expect(activated.client_id).toMatch(/^cli_/);
    expect(await portal.provisioning.activationStatus(device, activation_code)).toEqual({
      status: "active",
      device_id: activated.id,
      client_id: activated.client_id,
      merchant_id: branch.merchant.id,
      store_id: branch.store.id,
    });
    // Provisioned once: a new code for the same serial is a lifecycle violation.
    await expect(generate(serial)).rejects.toMatchObject({ code: "invalid_state" });
    await expect(activate(activation_code)).rejects.toMatchObject({ code: "not_found" });
  });

  it("refuses staff below L4 and stores outside the caller's scope", async () => {
    const { activation_code } = await generate();
    await expect(activate(activation_code, branch.callers.L5)).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      portal.provisioning.activate(branch.callers.L4, { activation_code, store_id: branch.otherStore.id }),
    ).rejects.toMatchObject({ code: "forbidden" });
    expect(await portal.provisioning.activationStatus(device, activation_code)).toEqual({ status: "pending" });
  });

  it("expires a code after 24 hours", async () => {
    const { activation_code } = await generate();
    now = new Date(now.getTime() + ACTIVATION_CODE_LIFETIME_MS + 1000);
    await expect(activate(activation_code)).rejects.toMatchObject({
      code: "not_found",
      details: { field: "activation_code" },
    });
    await expect(portal.provisioning.activationStatus(device, activation_code)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("replaces the previous code when a pending device asks again", async () => {
    const first = await generate();
    const second = await generate(first.serial);
    await expect(activate(first.activation_code)).rejects.toMatchObject({ code: "not_found" });
    expect((await activate(second.activation_code)).status).toBe("active");
  });

  it("limits code generation per serial number and per address", async () => {
    const serial = uniqueCode("SN");
    for (let i = 0; i < provisioningLimits.generatePerSerial.max; i++) await generate(serial);
    await expect(generate(serial)).rejects.toMatchObject({ code: "rate_limit_exceeded" });
    // Outside the ranges generate and register draw their addresses from, so no other test meets this exhausted one.
    const ip = "198.51.100.99";
    for (let i = 0; i < provisioningLimits.generatePerIp.max; i++) await generate(uniqueCode("SN"), ip);
    await expect(generate(uniqueCode("SN"), ip)).rejects.toMatchObject({ code: "rate_limit_exceeded" });
  });

  it("removes counters whose window has ended as it counts, with no timer of its own", async () => {
    const ended = `provisioning:generatePerIp:${uniqueCode("IP")}:0`;
    const running = `provisioning:generatePerIp:${uniqueCode("IP")}:0`;
    await portal.prisma.rateLimit.createMany({
      data: [
        { key: ended, points: 1, expire: new Date(Date.now() - 1000) },
        { key: running, points: 1, expire: new Date(Date.now() + 60_000) },
      ],
    });
    await generate();
    const left = await portal.prisma.rateLimit.findMany({ where: { key: { in: [ended, running] } } });
    expect(left.map((row) => row.key)).toEqual([running]);
  });

  describe("a code issued by the store's staff", () => {
    async function register(activation_code: string, serial = uniqueCode("SN")) {
      const { publicKey } = await generateKeyPair("ES256");
      return portal.provisioning.registerDevice(
        { ...device, ip: `192.0.2.${Math.floor(Math.random() * 250)}` },
        {
          activation_code,
          serial_number: serial,
          public_key_jwk: await exportJWK(publicKey),
          model: "A920",
          manufacturer: "PAX",
        },
      );
    }

    it("binds the terminal that registers with it to the store at once, once", async () => {
      const issued = await portal.provisioning.issueActivationCode(branch.callers.L4, { store_id: branch.store.id });
      expect(issued.expires_at.getTime() - now.getTime()).toBe(ACTIVATION_CODE_LIFETIME_MS);
      const registered = await register(issued.activation_code.toLowerCase());
      expect(registered).toMatchObject({
        status: "active",
        store_id: branch.store.id,
        merchant_id: branch.merchant.id,
      });
      expect(registered.client_id).toMatch(/^cli_/);
      const stored = await portal.devices.get(branch.callers.L4, registered.device_id);
      expect(stored).toMatchObject({ status: "active", client_id: registered.client_id });
      expect(await portal.provisioning.activationStatus(device, issued.activation_code)).toEqual(registered);
      await expect(register(issued.activation_code)).rejects.toMatchObject({ code: "not_found" });
    });

    it("is issued only by L4 or above for a store they reach, and is no device's own code", async () => {
      await expect(
        portal.provisioning.issueActivationCode(branch.callers.L5, { store_id: branch.store.id }),
      ).rejects.toMatchObject({ code: "forbidden" });
      await expect(
        portal.provisioning.issueActivationCode(branch.callers.L4, { store_id: branch.otherStore.id }),
      ).rejects.toMatchObject({ code: "forbidden" });
      const { activation_code } = await generate();
      await expect(register(activation_code)).rejects.toMatchObject({ code: "not_found" });
      const issued = await portal.provisioning.issueActivationCode(branch.callers.L4, { store_id: branch.store.id });
      await expect(activate(issued.activation_code)).rejects.toMatchObject({ code: "not_found" });
    });
  });

  it("refuses a key that is not a P-256 public key", async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const input = {
      serial_number: uniqueCode("SN"),
      public_key_jwk: await exportJWK(privateKey),
      model: "m",
      manufacturer: "x",
    };
    await expect(portal.provisioning.generateActivationCode(device, input)).rejects.toMatchObject({
      code: "invalid_request",
      details: { field: "public_key_jwk.d" },
    });
    const { d: _d, ...publicJwk } = input.public_key_jwk;
    const offCurve = { ...publicJwk, y: publicJwk.x };
    await expect(
      portal.provisioning.generateActivationCode(device, { ...input, public_key_jwk: offCurve }),
    ).rejects.toMatchObject({ code: "invalid_request", details: { field: "public_key_jwk" } });
  });

  describe("lifecycle moves", () => {
    const active = async () => activate((await generate()).activation_code);

    it("suspends, resumes, decommissions; refuses every other move with invalid_state", async () => {
      const { L4 } = branch.callers;
      const d = await active();
      await expect(portal.devices.resume(L4, d.id)).rejects.toMatchObject({ code: "invalid_state" });
      expect((await portal.devices.suspend(L4, d.id)).status).toBe("suspended");
      await expect(portal.devices.suspend(L4, d.id)).rejects.toMatchObject({ code: "invalid_state" });
      expect((await portal.devices.resume(L4, d.id)).status).toBe("active");
      expect((await portal.devices.decommission(L4, d.id)).status).toBe("decommissioned");
      for (const move of ["suspend", "resume", "decommission"] as const) {
        await expect(portal.devices[move](L4, d.id)).rejects.toMatchObject({ code: "invalid_state" });
      }
    });

    it("keeps staff and other stores' managers out", async () => {
      const d = await active();
      await expect(portal.devices.suspend(branch.callers.L6, d.id)).rejects.toMatchObject({ code: "forbidden" });
      const otherManager = { ...branch.callers.L4, storeId: branch.otherStore.id };
      await expect(portal.devices.get(otherManager, d.id)).rejects.toMatchObject({ code: "forbidden" });
      expect((await portal.devices.get(branch.callers.L6, d.id)).id).toBe(d.id);
    });

    it("transfers within the merchant only, and honours the terminal limit", async () => {
      const d = await active();
      const moved = await portal.devices.transfer(branch.callers.L2, d.id, { store_id: branch.otherStore.id });
      expect(moved.store_id).toBe(branch.otherStore.id);
      const away = await seedBranch(portal);
      await expect(portal.devices.transfer(operator, d.id, { store_id: away.store.id })).rejects.toMatchObject({
        details: { field: "store_id", constraint: "same_merchant" },
      });
      await portal.tenants.updateMerchant(operator, branch.merchant.id, { terminal_limit_per_store: 1 });
      const store = await portal.tenants.createStore(operator, {
        merchant_id: branch.merchant.id,
        code: uniqueCode("S"),
        name: "small",
      });
      const serial = uniqueCode("SN");
      await portal.devices.register(operator, {
        serial_number: serial,
        model: "m",
        manufacturer: "x",
        store_id: store.id,
      });
      await expect(portal.devices.transfer(operator, d.id, { store_id: store.id })).rejects.toMatchObject({
        code: "conflict",
        details: { constraint: "terminal_limit" },
      });
      await portal.tenants.updateMerchant(operator, branch.merchant.id, { terminal_limit_per_store: 1000 });
    });

    it("activates a registered terminal only for the store it was registered to", async () => {
      const serial = uniqueCode("SN");
      const registered = await portal.devices.register(branch.callers.L4, {
        serial_number: serial,
        model: "A920",
        manufacturer: "PAX",
        store_id: branch.store.id,
      });
      expect(registered.status).toBe("unprovisioned");
      const { activation_code } = await generate(serial);
      await expect(
        portal.provisioning.activate(operator, { activation_code, store_id: branch.otherStore.id }),
      ).rejects.toMatchObject({ code: "conflict", details: { field: "store_id" } });
      expect((await activate(activation_code)).id).toBe(registered.id);
    });
  });
});
