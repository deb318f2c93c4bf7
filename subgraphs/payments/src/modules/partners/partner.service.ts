import { AppError, type Caller, checkMasterKey, notFound, requireService, type SecretBox } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import { apiKeyIssuance } from "./api-key-issuance.service";
import type { PartnerRepository } from "./partner.repository";
import { partnerWebhooks } from "./partner-webhooks.service";

export type PartnerService = ReturnType<typeof partnerService>;

/** The spec's rotation period, unless API_KEY_LIFETIME_DAYS says otherwise. */
export const DEFAULT_KEY_LIFETIME_DAYS = 180;

/** Partners created, deactivated and made the sync partner. */
function partnerLifecycle(partners: PartnerRepository, clock: Clock) {
  return {
    /** A partner of one PSP (`psp_id`), whose admins manage its webhooks, or a platform partner (none). */
    createPartner: (name: string, options: { psp_id?: number } = {}, actor: Caller | null = null) =>
      partners.createPartner(
        name,
        options.psp_id,
        { event: "partner.created", actor, metadata: { name, psp_id: options.psp_id ?? null } },
        clock(),
      ),

    /** Deactivates the partner and revokes its keys; false when it was deactivated already. */
    async deactivatePartner(client_partner_id: number, actor: Caller | null): Promise<boolean> {
      if (!(await partners.findPartner(client_partner_id))) throw notFound("client partner");
      return partners.deactivatePartner(
        client_partner_id,
        { event: "partner.deactivated", actor, target: { type: "client_partner", id: String(client_partner_id) } },
        clock(),
      );
    },

    /**
     * Makes this partner the gateway's sync partner, the only one whose sync creates merchant and store ids (the
     * portal's), and takes that from any other. The platform calls it at start for the partner its portal syncs as.
     */
    async designateSyncPartner(client_partner_id: number): Promise<void> {
      if (!(await partners.findPartner(client_partner_id))) throw new AppError("not_found", "client partner not found");
      await partners.designateSyncPartner(client_partner_id);
    },
  };
}

/**
 * The keys' secrets as signatures need them: opened for the edge to verify a request (whose use it then notes), and
 * checked at start to open with the master key.
 */
function keyVerification(partners: PartnerRepository, box: SecretBox, clock: Clock) {
  return {
    /** Stops with `MasterKeyMismatchError` when the master key does not open the stored secrets (checked on open). */
    async verifyMasterKey(): Promise<void> {
      checkMasterKey(box, "payments", (await partners.newestSealed())?.secret_sealed);
    },

    /**
     * The client_id's recent secrets for the edge to verify a signature, newest first, each with its key's id,
     * expiry and whether it is revoked (a retired secret's signature gets its own error); null when the client_id
     * is unknown.
     */
    async credentialsFor(caller: Caller, client_id: string) {
      requireService(caller);
      const keys = await partners.recentKeys(client_id);
      const first = keys[0];
      if (!first) return null;
      return {
        client_partner_id: first.client_partner_id,
        keys: keys.map((key) => ({
          id: key.id,
          secret: box.open(key.secret_sealed),
          expires_at: key.expires_at,
          revoked: !key.is_active,
          permissions: key.permissions,
          store_ids: key.store_ids,
        })),
      };
    },

    /** The edge notes that a key signed a verified request (written at most once a minute). */
    async touchApiKey(caller: Caller, id: string): Promise<boolean> {
      requireService(caller);
      await partners.touchKey(id, clock());
      return true;
    },
  };
}

export function partnerService(
  partners: PartnerRepository,
  box: SecretBox,
  clock: Clock,
  keyLifetimeDays = DEFAULT_KEY_LIFETIME_DAYS,
) {
  return {
    ...partnerLifecycle(partners, clock),
    ...apiKeyIssuance(partners, box, clock, keyLifetimeDays),
    ...partnerWebhooks(partners, box, clock),
    ...keyVerification(partners, box, clock),
  };
}
