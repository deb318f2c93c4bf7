import { z } from "zod";

export const appName = z.enum(["business-app", "qr-app", "credit-card-app"]);
export const releaseStatus = z.enum(["beta", "stable", "deprecated"]);
const versionCode = z.number().int().positive().max(2_100_000_000);

export const registerInput = z.strictObject({
  app_name: appName,
  version_code: versionCode,
  version_name: z.string().trim().min(1).max(50),
  apk_url: z.url({ protocol: /^https$/ }).max(2000),
  apk_size: z.number().int().positive(),
  apk_checksum: z.string().regex(/^sha256:[0-9a-f]{64}$/, "sha256: followed by 64 lowercase hex digits"),
  release_notes: z.string().max(10_000).default(""),
  min_os_version: z.string().regex(/^\d+(\.\d+){0,2}$/, "a version such as 11 or 11.0.1"),
  is_mandatory: z.boolean().default(false),
});

export const updateInput = z.strictObject({
  rollout_percentage: z.number().int().min(0).max(100).optional(),
  release_status: releaseStatus.optional(),
  is_mandatory: z.boolean().optional(),
  release_notes: z.string().max(10_000).optional(),
  enroll_device_ids: z.array(z.uuid()).max(1000).optional(),
  unenroll_device_ids: z.array(z.uuid()).max(1000).optional(),
});

export const checkInput = z.strictObject({
  app_name: appName,
  current_version_code: z.number().int().min(0),
  device_id: z.uuid(),
});

export const installInput = z.strictObject({
  device_id: z.uuid(),
  version_code: versionCode,
  install_status: z.enum(["installed", "failed"]),
  app_name: appName.optional(),
});
