import { randomUUID } from "node:crypto";
import type { Caller } from "@pos-cloud/common";
import { testStorage } from "@pos-cloud/test-support/environment";
import { human, operator } from "@pos-cloud/test-support/portal-seed";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PortalDeps } from "../../context";
import { openPortal } from "../../index";
import { rolloutBucket } from "./app-update.service";

const deviceCaller = (id = randomUUID()): Caller => ({ type: "device", id, storeId: 1, scopes: ["app:update"] });
let nextCode = Math.floor(Date.now() / 1000) % 1_000_000_000;

describe("app updates", () => {
  let portal: PortalDeps;
  beforeAll(async () => {
    // Every report of this file shares one instant, so "latest" cannot lean on the clock.
    const now = new Date();
    portal = await openPortal({ ...testStorage("portal"), clock: () => now });
  });
  afterAll(() => portal?.close());

  /** A published version above every other in this run, so checks see only what the test set up. */
  async function version(fields: Record<string, unknown> = {}) {
    nextCode += 10;
    const created = await portal.appUpdates.register(operator, {
      app_name: "qr-app",
      version_code: nextCode,
      version_name: `1.${nextCode}`,
      apk_url: `https://cdn.example.com/qr-${nextCode}.apk`,
      apk_size: 1234,
      apk_checksum: `sha256:${"ab".repeat(32)}`,
      min_os_version: "11",
      ...fields,
    });
    await portal.appUpdates.publish(operator, created.id);
    return created;
  }
  const check = (caller: Caller, below: number) =>
    portal.appUpdates.check(caller, { app_name: "qr-app", current_version_code: below - 1, device_id: caller.id });

  it("offers a stable version to the rollout share of devices, the same answer each time", async () => {
    const v = await version();
    await portal.appUpdates.update(operator, v.id, { release_status: "stable", rollout_percentage: 30 });
    const devices = Array.from({ length: 2000 }, () => randomUUID());
    const inRollout = devices.filter((id) => rolloutBucket(id, "qr-app", v.version_code) < 30);
    // 2000 draws at p = 0.3: the standard deviation is about 1 percentage point; 4 is far outside chance.
    expect(Math.abs(inRollout.length / devices.length - 0.3)).toBeLessThan(0.04);
    for (const id of devices.slice(0, 40)) {
      const first = await check(deviceCaller(id), v.version_code);
      expect(await check(deviceCaller(id), v.version_code)).toEqual(first);
      expect(first.update_available).toBe(inRollout.includes(id));
    }
  });

  it("offers a beta only to enrolled devices, whatever the percentage", async () => {
    const enrolled = deviceCaller();
    const other = deviceCaller();
    const v = await version({ is_mandatory: true });
    await portal.appUpdates.update(operator, v.id, { rollout_percentage: 100, enroll_device_ids: [enrolled.id] });
    expect(await check(enrolled, v.version_code)).toMatchObject({
      update_available: true,
      version_code: v.version_code,
      is_mandatory: true,
      apk_checksum: v.apk_checksum,
    });
    expect(await check(other, v.version_code)).toEqual({ update_available: false });
  });

  it("lets a device ask only for itself", async () => {
    const caller = deviceCaller();
    await expect(
      portal.appUpdates.check(caller, { app_name: "qr-app", current_version_code: 1, device_id: randomUUID() }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      portal.appUpdates.check(operator, { app_name: "qr-app", current_version_code: 1, device_id: randomUUID() }),
    ).rejects.toMatchObject({ code: "forbidden" });
    const recorded = await portal.appUpdates.confirmInstall(caller, {
      device_id: caller.id,
      version_code: 3,
      install_status: "installed",
    });
    expect(recorded).toMatchObject({ device_id: caller.id, install_status: "installed" });
  });

  it("tells which version each device runs: its latest successful install of each app", async () => {
    const older = await version();
    const newer = await version();
    const [first, second] = [deviceCaller(), deviceCaller()];
    const install = (caller: Caller, version_code: number, install_status = "installed") =>
      portal.appUpdates.confirmInstall(caller, {
        device_id: caller.id,
        app_name: "qr-app",
        version_code,
        install_status,
      });
    await install(first, older.version_code);
    await install(second, older.version_code);
    await install(second, newer.version_code);
    await install(first, newer.version_code, "failed");
    expect(await portal.appUpdates.devicesOn(operator, older)).toEqual([first.id]);
    expect(await portal.appUpdates.devicesOn(operator, newer)).toEqual([second.id]);
    const installed = await portal.appUpdates.installedLoader().loadMany([first.id!, second.id!]);
    expect(installed).toEqual([
      [
        expect.objectContaining({
          app_name: "qr-app",
          version_code: older.version_code,
          version_name: older.version_name,
        }),
      ],
      [expect.objectContaining({ version_code: newer.version_code })],
    ]);
    await expect(
      portal.appUpdates.devicesOn(human("MERCHANT_ADMIN", { pspId: 1, merchantId: 1 }), older),
    ).rejects.toMatchObject({
      code: "forbidden",
    });
  });

  it("moves release_status beta → stable → deprecated only, and deprecated versions are not offered", async () => {
    const v = await version();
    await expect(portal.appUpdates.update(operator, v.id, { rollout_percentage: 101 })).rejects.toMatchObject({
      details: { field: "rollout_percentage" },
    });
    await portal.appUpdates.update(operator, v.id, { release_status: "stable", rollout_percentage: 100 });
    await expect(portal.appUpdates.update(operator, v.id, { release_status: "beta" })).rejects.toMatchObject({
      code: "invalid_state",
    });
    expect((await check(deviceCaller(), v.version_code)).update_available).toBe(true);
    await portal.appUpdates.update(operator, v.id, { release_status: "deprecated" });
    expect((await check(deviceCaller(), v.version_code)).update_available).toBe(false);
    await expect(portal.appUpdates.update(operator, v.id, { release_status: "stable" })).rejects.toMatchObject({
      code: "invalid_state",
    });
  });

  it("validates registrations and leaves version management to L0 and L1", async () => {
    const base = { app_name: "qr-app", version_code: 5, version_name: "1", apk_size: 1, min_os_version: "11" };
    const ok = { ...base, apk_url: "https://x.example/a.apk", apk_checksum: `sha256:${"0".repeat(64)}` };
    await expect(
      portal.appUpdates.register(operator, { ...ok, apk_url: "http://x.example/a.apk" }),
    ).rejects.toMatchObject({ details: { field: "apk_url" } });
    await expect(portal.appUpdates.register(operator, { ...ok, apk_checksum: "md5:abc" })).rejects.toMatchObject({
      details: { field: "apk_checksum" },
    });
    await expect(portal.appUpdates.register(operator, { ...ok, app_name: "other" })).rejects.toMatchObject({
      details: { field: "app_name" },
    });
    await expect(
      portal.appUpdates.register(human("MERCHANT_ADMIN", { pspId: 1, merchantId: 1 }), ok),
    ).rejects.toMatchObject({ code: "forbidden" });
    const v = await version();
    await expect(portal.appUpdates.register(operator, { ...ok, version_code: v.version_code })).rejects.toMatchObject({
      code: "conflict",
      details: { field: "version_code" },
    });
  });
});
