import type { PrismaClient } from "../../generated/prisma/client";

export type ProviderConfigRepository = ReturnType<typeof providerConfigRepository>;

/** The providers' configurations the merchant sync writes, one per store and provider code. */
export function providerConfigRepository(prisma: PrismaClient) {
  return {
    active: (store_id: number, code: string) =>
      prisma.providerConfig.findFirst({ where: { store_id, provider_code: code.toLowerCase(), is_active: true } }),
  };
}
