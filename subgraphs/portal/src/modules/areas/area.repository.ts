import { isUuid } from "@pos-cloud/common";
import type { PrismaClient } from "../../generated/prisma/client";

export type AreaRepository = ReturnType<typeof areaRepository>;

/** Areas group a merchant's stores for an area manager (L3). */
export function areaRepository(prisma: PrismaClient) {
  return {
    /** Null for an id that is not a UUID too: it cannot name an area. */
    find: (id: string) => (isUuid(id) ? prisma.area.findUnique({ where: { id } }) : Promise.resolve(null)),
    /** Areas of the given merchants (all when `merchant_ids` is absent), or the one area `id`. */
    list: (filter: { merchant_ids?: number[]; id?: string }) =>
      filter.id !== undefined && !isUuid(filter.id)
        ? Promise.resolve([])
        : prisma.area.findMany({
            where: { id: filter.id, ...(filter.merchant_ids ? { merchant_id: { in: filter.merchant_ids } } : {}) },
            orderBy: [{ name: "asc" }, { id: "asc" }],
          }),
    create: (data: { merchant_id: number; name: string }) => prisma.area.create({ data }),
    storeIds: async (area_id: string) =>
      isUuid(area_id)
        ? (await prisma.store.findMany({ where: { area_id }, select: { id: true } })).map((store) => store.id)
        : [],
    /** The store as the Store type shows it, with its merchant's PSP. */
    assignStore: (store_id: number, area_id: string | null) =>
      prisma.store.update({
        where: { id: store_id },
        data: { area_id },
        include: { merchant: { select: { psp_id: true } } },
      }),
  };
}
