import {
  type Caller,
  invalidField,
  isOperator,
  mapPage,
  notFound,
  type PageArgs,
  parseEntityId,
  parseInput,
  parsePage,
  partnerIdOf,
  requireOperator,
} from "@pos-cloud/common";
import { z } from "zod";
import type { Clock } from "../../clock";
import type { ApiKey, ClientPartner } from "../../generated/prisma/client";
import { apiKeyRestriction } from "./api-key.inputs";
import type { PartnerRepository } from "./partner.repository";
import type { PartnerService } from "./partner.service";

export type PartnerAdminService = ReturnType<typeof partnerAdminService>;

const DAY_MS = 24 * 60 * 60 * 1000;

const createPartnerInput = z.object({
  name: z.string().trim().min(1).max(255),
  psp_id: z.number().int().positive().nullish(),
});

const presentPartner = (partner: ClientPartner) => ({
  id: partner.id,
  name: partner.name,
  psp_id: partner.psp_id,
  status: partner.is_active ? ("active" as const) : ("deactivated" as const),
  created_at: partner.created_at,
  deactivated_at: partner.deactivated_at,
});

/** A key as operators see it: never its secrets. */
export const presentApiKey = (key: ApiKey, now: Date) => ({
  id: key.id,
  client_partner_id: key.client_partner_id,
  client_id: key.client_id,
  created_at: key.created_at,
  expires_at: key.expires_at,
  last_used_at: key.last_used_at,
  revoked_at: key.revoked_at,
  status: !key.is_active ? ("revoked" as const) : key.expires_at <= now ? ("expired" as const) : ("active" as const),
  permissions: key.permissions,
  store_ids: key.store_ids,
});

/**
 * Client partners and their API keys as system operators manage them (GraphQL, REST `/api/v1/partners`, the
 * `npm run partner` command), and the one thing a partner does itself: rotate the key it signs with.
 */
export function partnerAdminService(deps: { partners: PartnerService; repository: PartnerRepository; clock: Clock }) {
  const { partners, repository, clock } = deps;

  async function existing(id: number) {
    const partner = await repository.findPartner(parseEntityId(id));
    if (!partner) throw notFound("client partner");
    return partner;
  }

  return {
    async list(caller: Caller, page: PageArgs) {
      requireOperator(caller);
      return mapPage(await repository.listPartners(parsePage(page)), presentPartner);
    },

    async show(caller: Caller, id: number) {
      requireOperator(caller);
      return presentPartner(await existing(id));
    },

    async create(caller: Caller, input: unknown) {
      requireOperator(caller);
      const { name, psp_id } = parseInput(createPartnerInput, input);
      return presentPartner(await partners.createPartner(name, { psp_id: psp_id ?? undefined }, caller));
    },

    /** Deactivating a deactivated partner changes nothing and answers the same. */
    async deactivate(caller: Caller, id: number) {
      requireOperator(caller);
      await existing(id);
      await partners.deactivatePartner(id, caller);
      return presentPartner(await existing(id));
    },

    async keys(caller: Caller, client_partner_id: number) {
      requireOperator(caller);
      await existing(client_partner_id);
      const now = clock();
      return (await repository.partnerKeys(client_partner_id)).map((key) => presentApiKey(key, now));
    },

    /** A key of a new client_id, restricted to the permissions and stores `input` names (none: unrestricted). */
    async issue(caller: Caller, client_partner_id: number, input?: unknown) {
      requireOperator(caller);
      const { permissions, store_ids } = parseInput(apiKeyRestriction, input);
      const restriction = { permissions: permissions ?? [], store_ids: store_ids ?? [] };
      return partners.issueApiKey(parseEntityId(client_partner_id), { actor: caller, restriction });
    },

    async revoke(caller: Caller, client_partner_id: number, id: string) {
      requireOperator(caller);
      await partners.revokeApiKey(parseEntityId(client_partner_id), id, caller);
      const key = (await repository.partnerKeys(client_partner_id)).find((each) => each.id === id);
      if (!key) throw notFound("API key");
      return presentApiKey(key, clock());
    },

    /** Usable keys that expire within `days` (default 30), soonest first: the keys to chase for a rotation. */
    async expiring(caller: Caller, days: number | null | undefined) {
      requireOperator(caller);
      const within = days ?? 30;
      if (!Number.isInteger(within) || within < 1 || within > 366) {
        throw invalidField("days", "between_1_and_366", "days must be a whole number from 1 to 366");
      }
      const now = clock();
      const keys = await repository.expiringKeys(now, new Date(now.getTime() + within * DAY_MS), 1000);
      return keys.map((key) => presentApiKey(key, now));
    },

    /** For the console's open alerts: keys expiring within 30 days, for system operators; null for anyone else. */
    async expiringCount(caller: Caller) {
      return isOperator(caller) ? (await this.expiring(caller, null)).length : null;
    },

    /** The signing partner's next key of the client_id it signs with. */
    rotate: (caller: Caller, client_id: string) => partners.rotateApiKey(partnerIdOf(caller, null), client_id, caller),
  };
}
