import { readPage } from "@pos-cloud/common";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import { uniqueCode } from "../../sql";
import type { Page } from "../../validation";

export type AppUpdateRepository = ReturnType<typeof appUpdateRepository>;
export type AppVersionRow = Prisma.AppVersionGetPayload<object>;

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
  };
}
