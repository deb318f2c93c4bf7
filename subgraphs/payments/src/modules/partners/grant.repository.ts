import { newUlid, type Page, readPage } from "@pos-cloud/common";
import type { PartnerGrant, Prisma, PrismaClient } from "../../generated/prisma/client";
import { actorName, auditPartnerChange, type PartnerChange } from "./partner-audit.repository";

export type GrantRepository = ReturnType<typeof grantRepository>;

/** Which grants a list holds: a partner's, a merchant's, those on merchants of one PSP. */
export interface GrantFilter {
  client_partner_id?: number;
  merchant_id?: number;
  psp_id?: number;
}

/** What is granted: a whole merchant (`store_id` null) or one of its stores. */
export interface GrantScope {
  client_partner_id: number;
  merchant_id: number;
  store_id: number | null;
}

const live = { revoked_at: null };

const whereOf = (filter: GrantFilter): Prisma.PartnerGrantWhereInput => ({
  client_partner_id: filter.client_partner_id,
  merchant_id: filter.merchant_id,
  ...(filter.psp_id === undefined ? {} : { merchant: { psp_id: filter.psp_id } }),
});

/** A merchant's grants to client partners: made, found, listed and revoked, each change with its audit record. */
export function grantRepository(prisma: PrismaClient) {
  return {
    findMerchant: (id: number) => prisma.merchant.findUnique({ where: { id }, select: { id: true, psp_id: true } }),
    /** Which of these ids are stores of the merchant. */
    merchantStoreIds: async (merchant_id: number, ids: number[]) =>
      (await prisma.store.findMany({ where: { merchant_id, id: { in: ids } }, select: { id: true } })).map(
        (store) => store.id,
      ),
    findGrant: (id: string) => prisma.partnerGrant.findUnique({ where: { id } }),

    list: (filter: GrantFilter, page: Page) =>
      readPage(page, {
        rows: (take) =>
          prisma.partnerGrant.findMany({
            where: whereOf(filter),
            orderBy: [{ granted_at: "desc" }, { id: "desc" }],
            skip: page.offset,
            take,
          }),
        total: () => prisma.partnerGrant.count({ where: whereOf(filter) }),
      }),

    /**
     * The live grants covering each scope, made where none does: a store a live grant of its whole merchant covers
     * answers that grant. The merchant's row is locked, so two grants of the same scope at once make one row.
     */
    grant: (scopes: GrantScope[], change: Omit<PartnerChange, "target">, at: Date) =>
      prisma.$transaction(async (tx) => {
        const grants: PartnerGrant[] = [];
        for (const scope of scopes) {
          await tx.$queryRaw`SELECT id FROM merchants WHERE id = ${scope.merchant_id} FOR UPDATE`;
          const { client_partner_id, merchant_id, store_id } = scope;
          const existing = await tx.partnerGrant.findFirst({
            where: { client_partner_id, merchant_id, ...live, OR: [{ store_id: null }, { store_id }] },
            orderBy: { store_id: { sort: "asc", nulls: "first" } },
          });
          if (existing) {
            grants.push(existing);
            continue;
          }
          const created = await tx.partnerGrant.create({
            data: { id: `grt_${newUlid(at.getTime())}`, ...scope, granted_by: actorName(change.actor), granted_at: at },
          });
          await auditPartnerChange(tx, { ...change, target: { type: "partner_grant", id: created.id } }, at);
          grants.push(created);
        }
        return grants;
      }),

    /** Revokes a live grant; false when it was revoked already. */
    revoke: (id: string, change: PartnerChange, at: Date) =>
      prisma.$transaction(async (tx) => {
        const { count } = await tx.partnerGrant.updateMany({
          where: { id, ...live },
          data: { revoked_at: at, revoked_by: actorName(change.actor) },
        });
        if (count === 1) await auditPartnerChange(tx, change, at);
        return count === 1;
      }),
  };
}
