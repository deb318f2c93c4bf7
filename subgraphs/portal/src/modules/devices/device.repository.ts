import type { Caller } from "@pos-cloud/common";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import type { Page } from "../../validation";
import { deviceScope } from "../tenants/scope";

export type DeviceRepository = ReturnType<typeof deviceRepository>;
const withTenant = {
  store: { select: { area_id: true, merchant: { select: { psp_id: true, terminal_limit_per_store: true } } } },
};
export type DeviceRow = Prisma.DeviceGetPayload<{ include: typeof withTenant }>;

/** Devices that count against a store's terminal limit: all but decommissioned ones. */
const occupying = { status: { not: "decommissioned" } };

export function deviceRepository(prisma: PrismaClient) {
  return {
    list: (caller: Caller, filter: { store_id?: number; status?: string }, page: Page) =>
      prisma.device.findMany({
        where: { AND: [deviceScope(caller), filter] },
        include: withTenant,
        orderBy: { created_at: "asc" },
        take: page.limit,
        skip: page.offset,
      }),
    ofStores: (caller: Caller, storeIds: readonly number[]) =>
      prisma.device.findMany({
        where: { AND: [deviceScope(caller), { store_id: { in: [...storeIds] } }] },
        include: withTenant,
        orderBy: { created_at: "asc" },
      }),
    find: (id: string) => prisma.device.findUnique({ where: { id }, include: withTenant }),
    findBySerial: (serial_number: string) =>
      prisma.device.findUnique({ where: { serial_number }, include: withTenant }),
    findByClientId: (client_id: string) => prisma.device.findUnique({ where: { client_id }, include: withTenant }),
    create: (data: Prisma.DeviceUncheckedCreateInput) => prisma.device.create({ data, include: withTenant }),
    /** Writes only if the device is still in one of `from`; null when another request moved it first. */
    async move(id: string, from: string[], data: Prisma.DeviceUncheckedUpdateInput) {
      const { count } = await prisma.device.updateMany({ where: { id, status: { in: from } }, data });
      return count === 1 ? prisma.device.findUniqueOrThrow({ where: { id }, include: withTenant }) : null;
    },
    update: (id: string, data: Prisma.DeviceUncheckedUpdateInput) =>
      prisma.device.update({ where: { id }, data, include: withTenant }),
    countInStore: (store_id: number, exceptId?: string) =>
      prisma.device.count({ where: { store_id, ...occupying, ...(exceptId ? { id: { not: exceptId } } : {}) } }),
  };
}
