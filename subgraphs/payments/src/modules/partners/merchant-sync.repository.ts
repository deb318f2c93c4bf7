import { AppError, newUlid } from "@pos-cloud/common";
import type { PrismaClient } from "../../generated/prisma/client";
import type { SyncedMerchant } from "./merchant-sync.input";

export type MerchantSyncRepository = ReturnType<typeof merchantSyncRepository>;

/** Another partner's merchant or store is a tenant boundary; throwing inside the transaction rolls the sync back. */
const foreign = (kind: "merchant" | "store", id: number) =>
  new AppError("forbidden", `${kind} ${id} is synced by another client partner`, { field: `${kind}_id`, id });

export function merchantSyncRepository(prisma: PrismaClient) {
  return {
    /**
     * Upserts merchants, stores and provider configs in one transaction. A merchant or store that another client
     * partner synced is refused and the whole sync rolled back.
     */
    upsert: (client_partner_id: number, merchants: SyncedMerchant[], seal: (plaintext: string) => string) =>
      prisma.$transaction(async (tx) => {
        for (const merchant of merchants) {
          const existing = await tx.merchant.findUnique({ where: { id: merchant.id } });
          if (existing && existing.client_partner_id !== client_partner_id) {
            throw foreign("merchant", merchant.id);
          }
          const fields = { merchant_code: merchant.merchant_code, name: merchant.name };
          await tx.merchant.upsert({
            where: { id: merchant.id },
            create: { id: merchant.id, client_partner_id, ...fields },
            update: fields,
          });
          for (const store of merchant.stores) {
            const owner = await tx.store.findUnique({ where: { id: store.id }, select: { merchant: true } });
            if (owner && owner.merchant.client_partner_id !== client_partner_id) {
              throw foreign("store", store.id);
            }
            const storeFields = {
              merchant_id: merchant.id,
              store_code: store.store_code,
              name: store.name,
              is_active: store.is_active,
            };
            await tx.store.upsert({
              where: { id: store.id },
              create: { id: store.id, ...storeFields },
              update: storeFields,
            });
            for (const config of store.provider_configs) {
              const data = {
                credentials_sealed: seal(JSON.stringify(config.credentials)),
                is_active: config.is_active,
              };
              await tx.providerConfig.upsert({
                where: { store_id_provider_code: { store_id: store.id, provider_code: config.provider_code } },
                create: { id: newUlid(), store_id: store.id, provider_code: config.provider_code, ...data },
                update: data,
              });
            }
          }
        }
      }),
  };
}
