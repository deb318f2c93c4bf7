import { AppError, type Caller, type IdempotencyRequest, partnerIdOf, type SecretBox } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { Prisma } from "../../generated/prisma/client";
import type { IdempotencyService } from "../idempotency";
import { parseSyncInput } from "./merchant-sync.inputs";
import type { MerchantSyncRepository, UpsertOptions } from "./merchant-sync.repository";
import { SYNC_LEASE_MS } from "./sync-lease.rules";

export type MerchantSyncService = ReturnType<typeof merchantSyncService>;

/**
 * Merchant and store ids are the portal's: the platform's sync partner creates them by syncing; any other partner
 * syncs only the merchants and stores granted to it (docs/decisions/gateway.md, "Partner grants").
 */
export function merchantSyncService(
  sync: MerchantSyncRepository,
  box: SecretBox,
  clock: Clock,
  idempotency: IdempotencyService,
) {
  type SyncResult = { synced_merchants: number; synced_stores: number };
  async function upsert(
    client_partner_id: number,
    input: unknown,
    options: Omit<UpsertOptions, "finish">,
    finish: (tx: Prisma.TransactionClient, result: SyncResult) => Promise<void>,
  ): Promise<SyncResult> {
    const parsed = parseSyncInput(input);
    if (parsed.client_partner_id !== undefined && parsed.client_partner_id !== client_partner_id) {
      throw new AppError("forbidden", "client_partner_id is not the signing partner", { field: "client_partner_id" });
    }
    const result = {
      synced_merchants: parsed.merchants.length,
      synced_stores: parsed.merchants.reduce((total, merchant) => total + merchant.stores.length, 0),
    };
    await sync.upsert(client_partner_id, parsed.merchants, box.seal, {
      ...options,
      finish: (tx) => finish(tx, result),
    });
    return result;
  }

  return {
    /** The merchants synced under a PSP: what its admins (L1) reach of the payments subgraph's rows. */
    merchantIdsOfPsp: (pspId: number) => sync.merchantIdsOfPsp(pspId),

    /**
     * Upserts the partner's merchants, stores and provider configs (credentials sealed, never returned). A sync by the
     * platform's sync partner also renews its stores' lease. With an Idempotency-Key, the same sync sent again (by
     * another process of the portal, or a retry) gets the first answer (docs/decisions/gateway.md, "The sync's
     * Idempotency-Key").
     */
    async syncMerchants(caller: Caller, input: unknown, request?: IdempotencyRequest | null) {
      const client_partner_id = partnerIdOf(caller, "sync:write");
      return idempotency.run<SyncResult>(client_partner_id, request, async (complete) => {
        const isSyncPartner = await sync.isSyncPartner(client_partner_id);
        const options = {
          syncPartner: isSyncPartner,
          synced_until: isSyncPartner ? new Date(clock().getTime() + SYNC_LEASE_MS) : undefined,
        };
        return upsert(client_partner_id, input, options, complete);
      });
    },
  };
}
