import { readPage } from "@pos-cloud/common";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import { uniqueCode } from "../../sql";
import type { Page } from "../../validation";

export type AppUpdateRepository = ReturnType<typeof appUpdateRepository>;
export type AppVersionRow = Prisma.AppVersionGetPayload<object>;

/** What a device runs of one app: the version of its latest successful install report. */
export interface InstalledAppVersion {
  device_id: string;
  app_name: string | null;
  version_code: number;
  version_name: string | null;
  installed_at: Date;
}

export function appUpdateRepository(prisma: PrismaClient) {
  return {
    list: (filter: { app_name?: string }, page: Page) =>
      readPage(page, {
        rows: (take) =>
          prisma.appVersion.findMany({
            where: filter,
            orderBy: [{ app_name: "asc" }, { version_code: "desc" }],
            take,
            skip: page.offset,
          }),
        total: () => prisma.appVersion.count({ where: filter }),
      }),
    find: (id: number) => prisma.appVersion.findUnique({ where: { id } }),
    create: (data: Prisma.AppVersionCreateInput) => uniqueCode(prisma.appVersion.create({ data })),
    update: (id: number, data: Prisma.AppVersionUpdateInput) => prisma.appVersion.update({ where: { id }, data }),
    enroll: (app_version_id: number, add: string[], remove: string[]) =>
      prisma.$transaction([
        prisma.appVersionEnrollment.deleteMany({ where: { app_version_id, device_id: { in: remove } } }),
        prisma.appVersionEnrollment.createMany({
          data: add.map((device_id) => ({ app_version_id, device_id })),
          skipDuplicates: true,
        }),
      ]),
    enrolledDevices: async (app_version_id: number) =>
      (await prisma.appVersionEnrollment.findMany({ where: { app_version_id }, select: { device_id: true } })).map(
        (row) => row.device_id,
      ),
    /** Published, not deprecated versions of an app newer than the device has, with whether the device is enrolled. */
    candidates: (app_name: string, above: number, device_id: string) =>
      prisma.appVersion.findMany({
        where: {
          app_name,
          version_code: { gt: above },
          published_at: { not: null },
          release_status: { not: "deprecated" },
        },
        include: { enrollments: { where: { device_id }, select: { device_id: true } } },
        orderBy: { version_code: "desc" },
      }),
    recordInstall: (data: Prisma.AppInstallCreateInput) => prisma.appInstall.create({ data }),
    /** Per device and app, the version of the latest `installed` report, named when that version is registered. */
    installedOn: (deviceIds: readonly string[]) =>
      prisma.$queryRaw<InstalledAppVersion[]>`
        SELECT DISTINCT ON (i.device_id, i.app_name) i.device_id, i.app_name, i.version_code, v.version_name,
          i.reported_at AS installed_at
        FROM unnest(${[...deviceIds]}::uuid[]) AS wanted(device_id) JOIN app_installs i ON i.device_id = wanted.device_id
          LEFT JOIN app_versions v ON v.app_name = i.app_name AND v.version_code = i.version_code
        WHERE i.install_status = 'installed'
        ORDER BY i.device_id, i.app_name, i.seq DESC`,
    /** The devices whose latest `installed` report of the version's app is this version. */
    devicesOn: async (version: Pick<AppVersionRow, "app_name" | "version_code">) =>
      (
        await prisma.$queryRaw<{ device_id: string }[]>`
          SELECT device_id FROM (
            SELECT DISTINCT ON (device_id) device_id, version_code FROM app_installs
            WHERE app_name = ${version.app_name} AND install_status = 'installed'
            ORDER BY device_id, seq DESC
          ) latest WHERE version_code = ${version.version_code}`
      ).map((row) => row.device_id),
  };
}
