import { AppError, newUlid } from "@pos-cloud/common";
import type { PrismaClient } from "../../generated/prisma/client";
import type { SyncedMerchant } from "./merchant-sync.input";

export type MerchantSyncRepository = ReturnType<typeof merchantSyncRepository>;

export interface UpsertOptions {
  /** Whether ids the gateway does not hold yet may be created (the platform's sync partner, an operator's grant). */
  claim: boolean;
  /** The stores' new lease end; undefined leaves it as it is. */
  synced_until?: Date;
}

type Kind = "merchant" | "store";

/**
 * Throwing inside the transaction rolls the whole sync back. A partner that may not claim ids hears the same answer
 * for an id nobody holds and for another partner's, so it cannot probe which ids exist.
 */
function refuse(kind: Kind, id: number, options: UpsertOptions) {
  const message = options.claim
    ? `${kind} ${id} is held by another client partner`
    : `${kind} ${id} is not one of yours: only the platform's sync partner creates merchant and store ids`;
  return new AppError("forbidden", message, { field: `${kind}_id`, id });
}

export function merchantSyncRepository(prisma: PrismaClient) {
  return {
    isSyncPartner: async (client_partner_id: number) =>
      (await prisma.clientPartner.findUnique({ where: { id: client_partner_id }, select: { is_sync_partner: true } }))
        ?.is_sync_partner === true,

    /**
     * Upserts merchants, stores and provider configs in one transaction. A merchant or store another client partner
     * holds, or one nobody holds when `claim` is false, is refused and the whole sync rolled back.
     */
    upsert: (
      client_partner_id: number,
      merchants: SyncedMerchant[],
      seal: (plaintext: string) => string,
      options: UpsertOptions,
    ) =>
      prisma.$transaction(async (tx) => {
        const check = (kind: Kind, id: number, owner: number | undefined) => {
          if (owner === undefined ? !options.claim : owner !== client_partner_id) throw refuse(kind, id, options);
        };
        for (const merchant of merchants) {
          const existing = await tx.merchant.findUnique({ where: { id: merchant.id } });
          check("merchant", merchant.id, existing?.client_partner_id);
          const fields = { merchant_code: merchant.merchant_code, name: merchant.name };
          await tx.merchant.upsert({
            where: { id: merchant.id },
            create: { id: merchant.id, client_partner_id, ...fields },
            update: fields,
          });
          for (const store of merchant.stores) {
            const owner = await tx.store.findUnique({ where: { id: store.id }, select: { merchant: true } });
            check("store", store.id, owner?.merchant.client_partner_id);
            const storeFields = {
              merchant_id: merchant.id,
              store_code: store.store_code,
              name: store.name,
              is_active: store.is_active,
              synced_until: options.synced_until,
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
