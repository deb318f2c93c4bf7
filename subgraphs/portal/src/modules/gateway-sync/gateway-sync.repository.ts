import type { PrismaClient } from "../../generated/prisma/client";

export type GatewaySyncRepository = ReturnType<typeof gatewaySyncRepository>;

const merchantWithStores = {
  select: {
    id: true,
    code: true,
    status: true,
    provider_credentials: true,
    stores: { select: { id: true, code: true, status: true, provider_credentials: true }, orderBy: { id: "asc" } },
  },
} as const;

export function gatewaySyncRepository(prisma: PrismaClient) {
  return {
    merchants: (ids?: number[]) =>
      prisma.merchant.findMany({
        where: ids ? { id: { in: ids } } : {},
        orderBy: { id: "asc" },
        ...merchantWithStores,
      }),
    /** Merchant ids in pages, for the full sync. */
    merchantIds: async (afterId: number, take: number) =>
      (
        await prisma.merchant.findMany({
          where: { id: { gt: afterId } },
          orderBy: { id: "asc" },
          take,
          select: { id: true },
        })
      ).map((row) => row.id),
  };
}
