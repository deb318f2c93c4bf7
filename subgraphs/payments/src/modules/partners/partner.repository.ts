import type { PreparedSql } from "@pos-cloud/common/storage";
import { type ApiKey, Prisma, type PrismaClient, type Store } from "../../generated/prisma/client";

export type PartnerRepository = ReturnType<typeof partnerRepository>;

export type WebhookSettings = Pick<
  ApiKey,
  "webhook_url" | "webhook_secret_sealed" | "previous_webhook_secret_sealed" | "previous_webhook_secret_expires_at"
>;

export function partnerRepository(prisma: PrismaClient, sql: PreparedSql) {
  return {
    createPartner: (name: string, psp_id?: number) => prisma.clientPartner.create({ data: { name, psp_id } }),
    findPartner: (id: number) => prisma.clientPartner.findUnique({ where: { id } }),
    /** Makes this partner the sync partner and no other. */
    designateSyncPartner: (id: number) =>
      prisma.$transaction([
        prisma.clientPartner.updateMany({
          where: { is_sync_partner: true, NOT: { id } },
          data: { is_sync_partner: false },
        }),
        prisma.clientPartner.update({ where: { id }, data: { is_sync_partner: true } }),
      ]),
    activeKeys: (client_id: string) =>
      prisma.apiKey.findMany({ where: { client_id, is_active: true }, orderBy: { created_at: "desc" } }),
    createKey: (
      data: Pick<ApiKey, "id" | "client_partner_id" | "client_id" | "secret_sealed"> & Partial<WebhookSettings>,
    ) => prisma.apiKey.create({ data }),
    /** The webhook settings are the client_id's: every active secret of it carries the same ones. */
    /** With `secretWas`, only while the webhook secret is still that one (two rotations at once: one wins). */
    updateWebhook: (client_id: string, data: Partial<WebhookSettings>, secretWas?: string | null) =>
      prisma.apiKey.updateMany({
        where: { client_id, is_active: true, ...(secretWas === undefined ? {} : { webhook_secret_sealed: secretWas }) },
        data,
      }),
    /** One active row per client_id of the partner with a webhook_url (the newest; all carry the same settings). */
    webhookKeys: (client_partner_id: number) =>
      prisma.apiKey.findMany({
        where: { client_partner_id, is_active: true, webhook_url: { not: null } },
        orderBy: [{ client_id: "asc" }, { created_at: "desc" }],
        distinct: ["client_id"],
      }),
    revokeKey: (id: string, client_partner_id: number, at: Date) =>
      prisma.apiKey.updateMany({
        where: { id, client_partner_id, is_active: true },
        data: { is_active: false, revoked_at: at },
      }),
    /** The partner's stores whose code is `code`, or whose id is `id`; the partner filter is in the query. */
    partnerStores: (client_partner_id: number, match: { code: string; id?: number }) =>
      sql<Pick<Store, "id" | "merchant_id" | "store_code" | "is_active" | "synced_until">>(Prisma.sql`
        SELECT s.id, s.merchant_id, s.store_code, s.is_active, s.synced_until
        FROM stores s JOIN merchants m ON m.id = s.merchant_id
        WHERE m.client_partner_id = ${client_partner_id} AND (s.store_code = ${match.code} OR s.id = ${match.id ?? null})
        ORDER BY s.id`),
    partnerStoreCount: (client_partner_id: number) =>
      prisma.store.count({ where: { merchant: { client_partner_id } } }),
    firstPartnerStore: (client_partner_id: number) =>
      prisma.store.findFirst({ where: { merchant: { client_partner_id } }, orderBy: { id: "asc" } }),
    /** Whether a store id exists at all, to tell another partner's store from an unknown one. */
    storeOwner: (id: number) =>
      prisma.store.findUnique({ where: { id }, select: { merchant: { select: { client_partner_id: true } } } }),
  };
}
