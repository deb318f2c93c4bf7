import { createHash } from "node:crypto";
import { AppError, type Caller, notFound, requireDevice, requireTier, roles } from "@pos-cloud/common";
import DataLoader from "dataloader";
import { parseInput, parsePage } from "../../validation";
import { checkInput, installInput, registerInput, updateInput } from "./app-update.inputs";
import type { AppUpdateRepository, AppVersionRow } from "./app-update.repository";

export type AppUpdateService = ReturnType<typeof appUpdateService>;

/** L0 and L1 manage app versions: they are platform-wide, not a tenant's. */
const MANAGE_TIER = roles.PSP_ADMIN;

/** beta may become stable or deprecated, stable only deprecated; deprecated is final. */
const releaseMoves: Record<string, string[]> = {
  beta: ["stable", "deprecated"],
  stable: ["deprecated"],
  deprecated: [],
};

/**
 * The device's place in a version's rollout, 0 to 99: the same device gets the same answer for the same version,
 * and over many devices the share below p is p percent. Salting with app and version gives each rollout its own
 * canary group instead of always the same devices.
 */
export function rolloutBucket(deviceId: string, appName: string, versionCode: number): number {
  const digest = createHash("sha256").update(`${deviceId}:${appName}:${versionCode}`).digest();
  return digest.readUInt32BE(0) % 100;
}

/** Whether a device is offered a version: beta to enrolled devices only, stable by rollout percentage. */
export function eligible(version: AppVersionRow, deviceId: string, enrolled: boolean): boolean {
  if (version.release_status === "beta") return enrolled;
  return rolloutBucket(deviceId, version.app_name, version.version_code) < version.rollout_percentage;
}

export function appUpdateService(versions: AppUpdateRepository, clock: () => Date) {
  async function load(id: number) {
    const version = await versions.find(id);
    if (!version) throw notFound("app version");
    return version;
  }
  const withEnrollments = async (version: AppVersionRow) => ({
    ...version,
    enrolled_device_ids: await versions.enrolledDevices(version.id),
  });

  return {
    async register(caller: Caller, input: unknown) {
      requireTier(caller, MANAGE_TIER);
      const created = await versions.create(parseInput(registerInput, input));
      if (created === "taken") {
        throw new AppError("conflict", "this app already has this version_code", {
          field: "version_code",
          constraint: "unique",
        });
      }
      return withEnrollments(created);
    },
    async list(caller: Caller, filter: { app_name?: string }, page: { limit?: number; offset?: number } = {}) {
      requireTier(caller, MANAGE_TIER);
      const listed = await versions.list(filter, parsePage(page));
      return { ...listed, nodes: await Promise.all(listed.nodes.map(withEnrollments)) };
    },
    async update(caller: Caller, id: number, input: unknown) {
      requireTier(caller, MANAGE_TIER);
      const { enroll_device_ids, unenroll_device_ids, ...data } = parseInput(updateInput, input);
      const version = await load(id);
      const to = data.release_status;
      if (to !== undefined && to !== version.release_status && !releaseMoves[version.release_status]?.includes(to)) {
        throw new AppError("invalid_state", `a ${version.release_status} version cannot become ${to}`, {
          field: "release_status",
          allowed: releaseMoves[version.release_status],
        });
      }
      if (enroll_device_ids || unenroll_device_ids) {
        await versions.enroll(id, enroll_device_ids ?? [], unenroll_device_ids ?? []);
      }
      return withEnrollments(await versions.update(id, data));
    },
    /** Makes a version visible to update checks; publishing twice keeps the first time. */
    async publish(caller: Caller, id: number) {
      requireTier(caller, MANAGE_TIER);
      const version = await load(id);
      if (version.release_status === "deprecated") throw new AppError("invalid_state", "a deprecated version");
      if (version.published_at) return withEnrollments(version);
      return withEnrollments(await versions.update(id, { published_at: clock() }));
    },

    /** The newest version this device is offered; mandatory when it or any skipped offered version is. */
    async check(caller: Caller, input: unknown) {
      const { app_name, current_version_code, device_id } = parseInput(checkInput, input);
      requireDevice(caller, { id: device_id, scope: "app:update" });
      const offered = (await versions.candidates(app_name, current_version_code, device_id)).filter((version) =>
        eligible(version, device_id, version.enrollments.length > 0),
      );
      const newest = offered[0];
      if (!newest) return { update_available: false };
      return {
        update_available: true,
        version_name: newest.version_name,
        version_code: newest.version_code,
        apk_url: newest.apk_url,
        apk_size: newest.apk_size,
        apk_checksum: newest.apk_checksum,
        is_mandatory: offered.some((version) => version.is_mandatory),
        release_notes: newest.release_notes,
      };
    },
    /** The ids of the devices running a version (the caller's reach is applied by the device module). */
    async devicesOn(caller: Caller, version: AppVersionRow) {
      requireTier(caller, MANAGE_TIER);
      return versions.devicesOn(version);
    },
    /** Per-request batching of `Device.app_versions`: one statement for every device read; its reader reads them. */
    installedLoader: () =>
      new DataLoader(async (deviceIds: readonly string[]) => {
        const rows = await versions.installedOn(deviceIds);
        return deviceIds.map((id) => rows.filter((row) => row.device_id === id));
      }),
    async confirmInstall(caller: Caller, input: unknown) {
      const data = parseInput(installInput, input);
      requireDevice(caller, { id: data.device_id, scope: "app:update" });
      return versions.recordInstall({ ...data, reported_at: clock() });
    },
  };
}
