import { AppError, newUlid } from "@pos-cloud/common";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import type { SyncedMerchant } from "./merchant-sync.inputs";

export type MerchantSyncRepository = ReturnType<typeof merchantSyncRepository>;

export interface UpsertOptions {
  /**
   * The platform's sync partner creates merchant and store ids (the portal's) and updates any; another partner
   * updates only what its live grants cover.
   */
  syncPartner: boolean;
  /** The stores' new lease end; undefined leaves it as it is. */
  synced_until?: Date;
  /** Written last in the sync's transaction (the Idempotency-Key's answer), so it commits with the sync or not at all. */
  finish: (tx: Prisma.TransactionClient) => Promise<unknown>;
}

type Kind = "merchant" | "store";

/**
 * Throwing inside the transaction rolls the whole sync back. A partner hears the same answer for an id nobody holds
 * and for one outside its grants, so it cannot probe which ids exist.
 */
const refuse = (kind: Kind, id: number) =>
  new AppError("forbidden", `${kind} ${id} is not one of yours: it is not granted to you`, { field: `${kind}_id`, id });

/**
 * What a partner other than the sync partner may sync of a merchant: nothing without a live grant; its fields (code,
 * name) with a grant of the whole merchant; the stores its grants cover. Only the sync partner moves a merchant to
 * another PSP.
 */
async function grantedPart(tx: Prisma.TransactionClient, client_partner_id: number, merchant: SyncedMerchant) {
  const grants = await tx.partnerGrant.findMany({
    where: { client_partner_id, merchant_id: merchant.id, revoked_at: null },
    select: { store_id: true, merchant: { select: { psp_id: true } } },
  });
  const psp_id = grants[0]?.merchant.psp_id;
  if (psp_id === undefined) throw refuse("merchant", merchant.id);
  const whole = grants.some((grant) => grant.store_id === null);
  const fields = merchant.merchant_code ?? merchant.name;
  const movesPsp = merchant.psp_id !== undefined && merchant.psp_id !== psp_id;
  if (movesPsp || (!whole && fields !== undefined)) {
    throw new AppError("forbidden", `merchant ${merchant.id}: only the stores granted to you may be synced`, {
      field: "merchant_id",
      id: merchant.id,
    });
  }
  return (store_id: number) => whole || grants.some((grant) => grant.store_id === store_id);
}

export function merchantSyncRepository(prisma: PrismaClient) {
  return {
    isSyncPartner: async (client_partner_id: number) =>
      (await prisma.clientPartner.findUnique({ where: { id: client_partner_id }, select: { is_sync_partner: true } }))
        ?.is_sync_partner === true,

    /** The merchants the portal placed under a PSP, as its sync last said. */
    merchantIdsOfPsp: async (psp_id: number) =>
      (await prisma.merchant.findMany({ where: { psp_id }, select: { id: true } })).map((merchant) => merchant.id),

    /**
     * Upserts merchants, stores and provider configs in one transaction. A merchant or store a partner other than the
     * sync partner may not sync (outside its grants, or not there yet) is refused and the whole sync rolled back.
     */
    upsert: (
      client_partner_id: number,
      merchants: SyncedMerchant[],
      seal: (plaintext: string) => string,
      options: UpsertOptions,
    ) =>
      prisma.$transaction(async (tx) => {
        for (const merchant of merchants) {
          const granted = options.syncPartner ? () => true : await grantedPart(tx, client_partner_id, merchant);
          const fields = { merchant_code: merchant.merchant_code, name: merchant.name, psp_id: merchant.psp_id };
          await tx.merchant.upsert({
            where: { id: merchant.id },
            create: { id: merchant.id, client_partner_id, ...fields },
            update: fields,
          });
          for (const store of merchant.stores) {
            const existing = await tx.store.findUnique({ where: { id: store.id }, select: { merchant_id: true } });
            const mayWrite = options.syncPartner || (existing?.merchant_id === merchant.id && granted(store.id));
            if (!mayWrite) throw refuse("store", store.id);
            const storeFields = {
              merchant_id: merchant.id,
              store_code: store.store_code,
              name: store.name,
              is_active: store.is_active,
              tip_ceiling_percent: store.tip_ceiling_percent,
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
        await options.finish(tx);
      }),
  };
}
