import {
  AppError,
  type Caller,
  type GrantAction,
  invalidField,
  mapPage,
  notFound,
  type PageArgs,
  parseEntityId,
  parseInput,
  parsePage,
  partnerIdOf,
  reachOf,
  requireGrantAccess,
  requireTier,
  roles,
} from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { PartnerGrant } from "../../generated/prisma/client";
import { grantCreate } from "./grant.inputs";
import type { GrantFilter, GrantRepository } from "./grant.repository";
import type { PartnerRepository } from "./partner.repository";

export type GrantService = ReturnType<typeof grantService>;

export const presentGrant = (grant: PartnerGrant) => ({
  id: grant.id,
  client_partner_id: grant.client_partner_id,
  merchant_id: grant.merchant_id,
  store_id: grant.store_id,
  granted_by: grant.granted_by,
  granted_at: grant.granted_at,
  revoked_by: grant.revoked_by,
  revoked_at: grant.revoked_at,
  status: grant.revoked_at === null ? ("active" as const) : ("revoked" as const),
});

/** The grants a caller may list, as a filter: L0 all, L1 those on its PSP's merchants, L2 those on its merchant. */
function listedBy(caller: Caller): GrantFilter {
  requireTier(caller, roles.MERCHANT_ADMIN);
  const reach = reachOf(caller);
  if (reach.level === "platform") return {};
  if (reach.level === "psp") return { psp_id: reach.pspId };
  if (reach.level === "merchant") return { merchant_id: reach.merchantId };
  // A token missing the id its tier needs reaches nothing, and no merchant has id 0.
  return { merchant_id: 0 };
}

/**
 * A merchant's grants to client partners (docs/decisions/gateway.md, "Partner grants"): what a partner other than the
 * platform's sync partner may act on. Granted by a system operator or the merchant's PSP admin, listed and revoked
 * by them and by the merchant's own admin.
 */
export function grantService(deps: { grants: GrantRepository; partners: PartnerRepository; clock: Clock }) {
  const { grants, partners, clock } = deps;

  /**
   * The merchant, once the caller may act on its grants. A role that may not act at all is refused (403); a merchant
   * its tier could act on but the caller does not reach (another PSP's, another merchant's) is not found, as every
   * resource outside the caller's place is.
   */
  async function merchantFor(caller: Caller, merchant_id: number, action: GrantAction) {
    requireTier(caller, action === "grant" ? roles.PSP_ADMIN : roles.MERCHANT_ADMIN);
    const merchant = await grants.findMerchant(merchant_id);
    if (!merchant) throw notFound("merchant");
    try {
      requireGrantAccess(caller, merchant, action);
    } catch (error) {
      if (error instanceof AppError && error.code === "forbidden") throw notFound("merchant");
      throw error;
    }
    return merchant;
  }

  async function existingPartner(id: number) {
    const partner = await partners.findPartner(parseEntityId(id));
    if (!partner) throw notFound("client partner");
    return partner;
  }

  return {
    async partnerGrants(caller: Caller, client_partner_id: number, page: PageArgs) {
      const filter = listedBy(caller);
      await existingPartner(client_partner_id);
      return mapPage(await grants.list({ ...filter, client_partner_id }, parsePage(page)), presentGrant);
    },

    /** Any key of the partner reads them: which stores it may name is no secret from itself. */
    async ownGrants(caller: Caller, page: PageArgs) {
      const client_partner_id = partnerIdOf(caller, null);
      return mapPage(await grants.list({ client_partner_id }, parsePage(page)), presentGrant);
    },

    async merchantGrants(caller: Caller, merchant_id: number, page: PageArgs) {
      await merchantFor(caller, parseEntityId(merchant_id, "merchant_id"), "read");
      return mapPage(await grants.list({ merchant_id }, parsePage(page)), presentGrant);
    },

    /**
     * Grants the whole merchant (no `store_ids`: its stores now and later) or those of its stores; what a live grant
     * covers already is answered with that grant, not granted twice.
     */
    async grant(caller: Caller, client_partner_id: number, input: unknown) {
      const { merchant_id, store_ids } = parseInput(grantCreate, input);
      const merchant = await merchantFor(caller, merchant_id, "grant");
      const partner = await existingPartner(client_partner_id);
      if (!partner.is_active) throw invalidField("client_partner_id", "active", "this client partner is deactivated");
      const wanted = [...new Set(store_ids ?? [])];
      const known = await grants.merchantStoreIds(merchant.id, wanted);
      const unknown = wanted.find((id) => !known.includes(id));
      if (unknown !== undefined) {
        throw invalidField("store_ids", "merchant_store", `store ${unknown} is not a store of merchant ${merchant.id}`);
      }
      const scopes = (store_ids ? wanted : [null]).map((store_id) => ({ client_partner_id, merchant_id, store_id }));
      const place = { psp_id: merchant.psp_id, merchant_id };
      const change = { event: "partner_grant.created" as const, actor: caller, place, metadata: { client_partner_id } };
      return { grants: (await grants.grant(scopes, change, clock())).map(presentGrant) };
    },

    /** Revoking a revoked grant changes nothing and answers it as it is. */
    async revoke(caller: Caller, client_partner_id: number, id: string) {
      const grant = await grants.findGrant(id);
      if (!grant || grant.client_partner_id !== client_partner_id) throw notFound("grant");
      const merchant = await merchantFor(caller, grant.merchant_id, "revoke");
      await grants.revoke(
        id,
        {
          event: "partner_grant.revoked",
          actor: caller,
          target: { type: "partner_grant", id },
          place: { psp_id: merchant.psp_id, merchant_id: merchant.id, store_id: grant.store_id },
          metadata: { client_partner_id },
        },
        clock(),
      );
      return presentGrant((await grants.findGrant(id)) ?? grant);
    },
  };
}
