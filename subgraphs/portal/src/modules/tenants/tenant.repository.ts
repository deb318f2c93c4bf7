import type { Caller } from "@pos-cloud/common";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";
import type { Page } from "../../validation";
import { merchantScope, pspScope, storeScope } from "./scope";

export type TenantRepository = ReturnType<typeof tenantRepository>;
export type PspRow = Prisma.PspGetPayload<object>;
export type MerchantRow = Prisma.MerchantGetPayload<object>;
const withPsp = { merchant: { select: { psp_id: true, terminal_limit_per_store: true } } } as const;
export type StoreRow = Prisma.StoreGetPayload<{ include: typeof withPsp }>;

/** A unique code taken at its level becomes a 409 naming the field; other errors pass through. */
export async function uniqueCode<T>(write: Promise<T>): Promise<T | "taken"> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return "taken";
    throw error;
  }
}

/** Every read is filtered by the caller's tenant scope; rows outside it do not exist for the caller. */
export function tenantRepository(prisma: PrismaClient) {
  return {
    listPsps: (caller: Caller, page: Page) =>
      prisma.psp.findMany({ where: pspScope(caller), orderBy: { id: "asc" }, take: page.limit, skip: page.offset }),
    pspsByIds: (ids: readonly number[]) => prisma.psp.findMany({ where: { id: { in: [...ids] } } }),
    findPsp: (id: number) => prisma.psp.findUnique({ where: { id } }),
    createPsp: (data: Prisma.PspCreateInput) => uniqueCode(prisma.psp.create({ data })),

    listMerchants: (caller: Caller, filter: { psp_id?: number }, page: Page) =>
      prisma.merchant.findMany({
        where: { AND: [merchantScope(caller), filter] },
        orderBy: { id: "asc" },
        take: page.limit,
        skip: page.offset,
      }),
    merchantsOfPsps: (caller: Caller, pspIds: readonly number[]) =>
      prisma.merchant.findMany({
        where: { AND: [merchantScope(caller), { psp_id: { in: [...pspIds] } }] },
        orderBy: { id: "asc" },
      }),
    /** Every merchant id of a PSP, unpaginated (an L1's reach). */
    merchantIdsOfPsp: async (psp_id: number) =>
      (await prisma.merchant.findMany({ where: { psp_id }, select: { id: true } })).map((row) => row.id),
    merchants: (ids: readonly number[]) => prisma.merchant.findMany({ where: { id: { in: [...ids] } } }),
    findMerchant: (id: number) => prisma.merchant.findUnique({ where: { id } }),
    createMerchant: (data: Prisma.MerchantUncheckedCreateInput) => uniqueCode(prisma.merchant.create({ data })),
    updateMerchant: (id: number, data: Prisma.MerchantUncheckedUpdateInput) =>
      uniqueCode(prisma.merchant.update({ where: { id }, data })),

    listStores: (caller: Caller, filter: { merchant_id?: number }, page: Page) =>
      prisma.store.findMany({
        where: { AND: [storeScope(caller), filter] },
        include: withPsp,
        orderBy: { id: "asc" },
        take: page.limit,
        skip: page.offset,
      }),
    storesOfMerchants: (caller: Caller, merchantIds: readonly number[]) =>
      prisma.store.findMany({
        where: { AND: [storeScope(caller), { merchant_id: { in: [...merchantIds] } }] },
        include: withPsp,
        orderBy: { id: "asc" },
      }),
    stores: (ids: readonly number[]) => prisma.store.findMany({ where: { id: { in: [...ids] } }, include: withPsp }),
    findStore: (id: number) => prisma.store.findUnique({ where: { id }, include: withPsp }),
    createStore: (data: Prisma.StoreUncheckedCreateInput) =>
      uniqueCode(prisma.store.create({ data, include: withPsp })),
    updateStore: (id: number, data: Prisma.StoreUncheckedUpdateInput) =>
      uniqueCode(prisma.store.update({ where: { id }, data, include: withPsp })),
  };
}
