import { keysRevokedOutboxRow, type Page, readPage } from "@pos-cloud/common";
import type { PreparedSql } from "@pos-cloud/common/storage";
import { type ApiKey, Prisma, type PrismaClient, type Store } from "../../generated/prisma/client";
import { auditPartnerChange, type PartnerChange } from "./partner-audit.repository";

export type PartnerRepository = ReturnType<typeof partnerRepository>;

export type WebhookSettings = Pick<
  ApiKey,
  "webhook_url" | "webhook_secret_sealed" | "previous_webhook_secret_sealed" | "previous_webhook_secret_expires_at"
>;

export type NewApiKey = Pick<
  ApiKey,
  "id" | "client_partner_id" | "client_id" | "secret_sealed" | "expires_at" | "permissions" | "store_ids"
> &
  Partial<WebhookSettings>;

/**
 * Why a key was not issued: the partner is unknown or deactivated, holds its limit of client_ids with usable keys
 * already (`limit`), or the client_id has its limit of usable secrets (`rotating`: a rotation's overlap is running).
 */
export type IssueRefusal = "not_found" | "inactive" | "limit" | "rotating";

/** A key the edge can still use: not revoked and not past its expiry. */
const usable = (now: Date) => ({ is_active: true, expires_at: { gt: now } });

/** The partners themselves: created, listed, deactivated, made the sync partner. */
function partnerRows(prisma: PrismaClient) {
  return {
    createPartner: (name: string, psp_id: number | undefined, change: Omit<PartnerChange, "target">, at: Date) =>
      prisma.$transaction(async (tx) => {
        const partner = await tx.clientPartner.create({ data: { name, psp_id, created_at: at } });
        await auditPartnerChange(
          tx,
          { ...change, target: { type: "client_partner", id: String(partner.id) }, place: { psp_id } },
          at,
        );
        return partner;
      }),
    findPartner: (id: number) => prisma.clientPartner.findUnique({ where: { id } }),
    listPartners: (page: Page) =>
      readPage(page, {
        rows: (take) => prisma.clientPartner.findMany({ orderBy: { id: "asc" }, skip: page.offset, take }),
        total: () => prisma.clientPartner.count(),
      }),
    /** Deactivates the partner and revokes its keys with it; false when it was not active. */
    deactivatePartner: (id: number, change: PartnerChange, at: Date) =>
      prisma.$transaction(async (tx) => {
        const { count } = await tx.clientPartner.updateMany({
          where: { id, is_active: true },
          data: { is_active: false, deactivated_at: at },
        });
        if (count === 0) return false;
        await tx.apiKey.updateMany({
          where: { client_partner_id: id, is_active: true },
          data: { is_active: false, revoked_at: at },
        });
        await auditPartnerChange(tx, change, at);
        await tx.outboxEvent.create({ data: keysRevokedOutboxRow({ client_partner_id: id, api_key_id: null }, at) });
        return true;
      }),
    /** Makes this partner the sync partner and no other. */
    designateSyncPartner: (id: number) =>
      prisma.$transaction([
        prisma.clientPartner.updateMany({
          where: { is_sync_partner: true, NOT: { id } },
          data: { is_sync_partner: false },
        }),
        prisma.clientPartner.update({ where: { id }, data: { is_sync_partner: true } }),
      ]),
  };
}

/** A partner's API keys: issued, found by client_id, touched and revoked. */
function apiKeyRows(prisma: PrismaClient) {
  return {
    /** The newest key's sealed secret, if any key was issued. */
    newestSealed: () => prisma.apiKey.findFirst({ select: { secret_sealed: true }, orderBy: { id: "desc" } }),
    /**
     * Issues a key unless the partner is unknown or deactivated, or would hold more than `maxClientIds` client_ids with
     * usable keys, or more than `maxSecrets` usable secrets of the key's client_id, under a lock of the partner's row so two issues
     * at once cannot pass a limit together. With `shorten`, the other usable keys of the client_id expire by then at
     * the latest (a rotation's overlap).
     */
    issueKey: (
      key: NewApiKey,
      options: { maxClientIds: number; maxSecrets: number; now: Date; shorten?: Date },
      change: Omit<PartnerChange, "target">,
    ) =>
      prisma.$transaction(async (tx): Promise<{ key: ApiKey } | { refused: IssueRefusal }> => {
        const [partner] = await tx.$queryRaw<{ is_active: boolean }[]>`
          SELECT is_active FROM client_partners WHERE id = ${key.client_partner_id} FOR UPDATE`;
        if (!partner) return { refused: "not_found" };
        if (!partner.is_active) return { refused: "inactive" };
        const held = await tx.apiKey.findMany({
          where: { client_partner_id: key.client_partner_id, ...usable(options.now) },
          select: { client_id: true },
        });
        const clientIds = new Set(held.map((each) => each.client_id));
        if (!clientIds.has(key.client_id) && clientIds.size >= options.maxClientIds) return { refused: "limit" };
        if (held.filter((each) => each.client_id === key.client_id).length >= options.maxSecrets) {
          return { refused: "rotating" };
        }
        if (options.shorten) {
          await tx.apiKey.updateMany({
            where: { client_id: key.client_id, ...usable(options.now), expires_at: { gt: options.shorten } },
            data: { expires_at: options.shorten },
          });
        }
        const created = await tx.apiKey.create({ data: { ...key, created_at: options.now } });
        await auditPartnerChange(tx, { ...change, target: { type: "api_key", id: created.id } }, options.now);
        return { key: created };
      }),
    /** The client_id's usable keys, newest first. */
    activeKeys: (client_id: string, now: Date) =>
      prisma.apiKey.findMany({ where: { client_id, ...usable(now) }, orderBy: { created_at: "desc" } }),
    /** The client_id's newest key ever issued, revoked or expired ones too: the only one that manages it. */
    newestKey: (client_id: string) =>
      prisma.apiKey.findFirst({ where: { client_id }, orderBy: [{ created_at: "desc" }, { id: "desc" }] }),
    /** A partner's keys, usable or not, newest first. */
    partnerKeys: (client_partner_id: number) =>
      prisma.apiKey.findMany({ where: { client_partner_id }, orderBy: [{ created_at: "desc" }, { id: "desc" }] }),
    /**
     * The client_id's newest keys, revoked and expired ones too: the edge tells a signature by a retired secret from a
     * wrong one. Ten cover every rotation a partner would still sign with.
     */
    recentKeys: (client_id: string) =>
      prisma.apiKey.findMany({ where: { client_id }, orderBy: { created_at: "desc" }, take: 10 }),
    /** Notes a key's use unless a use within the last minute is noted already: at most one write a minute per key. */
    touchKey: (id: string, at: Date) =>
      prisma.apiKey.updateMany({
        where: { id, OR: [{ last_used_at: null }, { last_used_at: { lt: new Date(at.getTime() - 60_000) } }] },
        data: { last_used_at: at },
      }),
    /** Revokes an unrevoked key of the partner; false when there is none. */
    revokeKey: (id: string, client_partner_id: number, change: PartnerChange, at: Date) =>
      prisma.$transaction(async (tx) => {
        const { count } = await tx.apiKey.updateMany({
          where: { id, client_partner_id, is_active: true },
          data: { is_active: false, revoked_at: at },
        });
        if (count === 1) {
          await auditPartnerChange(tx, change, at);
          await tx.outboxEvent.create({ data: keysRevokedOutboxRow({ client_partner_id, api_key_id: id }, at) });
        }
        return count === 1;
      }),
  };
}

/** Keys near their expiry, and the notices written about it. */
function keyExpiryRows(prisma: PrismaClient) {
  return {
    /** Usable keys expiring by `until`, soonest first. */
    expiringKeys: (now: Date, until: Date, take: number) =>
      prisma.apiKey.findMany({
        where: { is_active: true, expires_at: { gt: now, lte: until } },
        orderBy: { expires_at: "asc" },
        take,
      }),
    countExpiringKeys: (now: Date, until: Date) =>
      prisma.apiKey.count({ where: { is_active: true, expires_at: { gt: now, lte: until } } }),
    /** Unrevoked keys expiring in `expiring` whose notice for `days` (or a nearer one) is not written yet. */
    keysDueNotice: (days: number, expiring: { gt?: Date; lte: Date }, take: number) =>
      prisma.apiKey.findMany({
        where: {
          is_active: true,
          expires_at: expiring,
          OR: [{ expiry_notice_days: null }, { expiry_notice_days: { gt: days } }],
        },
        orderBy: { expires_at: "asc" },
        take,
      }),
    /**
     * Records that the key's notice for `days` (0: its expiry) is written, with the event in the same transaction;
     * false when another worker recorded it (or a nearer one) first, so no notice goes out twice.
     */
    recordExpiryNotice: (key: ApiKey, days: number, write: (tx: Prisma.TransactionClient) => Promise<unknown>) =>
      prisma.$transaction(async (tx) => {
        const { count } = await tx.apiKey.updateMany({
          where: { id: key.id, OR: [{ expiry_notice_days: null }, { expiry_notice_days: { gt: days } }] },
          data: { expiry_notice_days: days },
        });
        if (count === 1) await write(tx);
        return count === 1;
      }),
  };
}

/** The webhook settings, which are the client_id's: every active secret of it carries the same ones. */
function webhookSettingRows(prisma: PrismaClient) {
  return {
    /** With `secretWas`, only while the webhook secret is still that one (two rotations at once: one wins). */
    updateWebhook: (client_id: string, data: Partial<WebhookSettings>, secretWas?: string | null) =>
      prisma.apiKey.updateMany({
        where: { client_id, is_active: true, ...(secretWas === undefined ? {} : { webhook_secret_sealed: secretWas }) },
        data,
      }),
    /** One active row per client_id of the partner with a webhook_url (the newest; all carry the same settings). */
    webhookKeys: (client_partner_id: number, now: Date) =>
      prisma.apiKey.findMany({
        where: { client_partner_id, ...usable(now), webhook_url: { not: null } },
        orderBy: [{ client_id: "asc" }, { created_at: "desc" }],
        distinct: ["client_id"],
      }),
  };
}

type PartnerStore = Pick<
  Store,
  "id" | "merchant_id" | "store_code" | "is_active" | "synced_until" | "tip_ceiling_percent"
>;

/**
 * The stores a partner acts on: every store for the platform's sync partner, else the stores of its live grants (a
 * whole merchant's, now and later, or one store). Every query of a partner's stores takes this filter.
 */
const reachedBy = (client_partner_id: number) => Prisma.sql`(
  EXISTS (SELECT 1 FROM client_partners p WHERE p.id = ${client_partner_id} AND p.is_sync_partner)
  OR EXISTS (
    SELECT 1 FROM partner_grants g
    WHERE g.client_partner_id = ${client_partner_id} AND g.revoked_at IS NULL AND g.merchant_id = s.merchant_id
      AND (g.store_id IS NULL OR g.store_id = s.id)))`;

/** The stores a partner reaches. */
function partnerStoreRows(sql: PreparedSql) {
  return {
    /** The partner's stores whose code is `code`, or whose id is `id`. */
    partnerStores: (client_partner_id: number, match: { code: string; id?: number }) =>
      sql<PartnerStore>(Prisma.sql`
        SELECT s.id, s.merchant_id, s.store_code, s.is_active, s.synced_until, s.tip_ceiling_percent FROM stores s
        WHERE (s.store_code = ${match.code} OR s.id = ${match.id ?? null}) AND ${reachedBy(client_partner_id)}
        ORDER BY s.id`),
    /** The partner's first stores by id, at most `take`: enough to tell whether it has exactly one. */
    firstPartnerStores: (client_partner_id: number, take: number) =>
      sql<PartnerStore>(Prisma.sql`
        SELECT s.id, s.merchant_id, s.store_code, s.is_active, s.synced_until, s.tip_ceiling_percent FROM stores s
        WHERE ${reachedBy(client_partner_id)} ORDER BY s.id LIMIT ${take}`),
    /** Whether the partner reaches this store of this merchant now. */
    reachesStore: async (client_partner_id: number, store: { id: number; merchant_id: number }) =>
      (
        await sql<{ id: number }>(Prisma.sql`
          SELECT s.id FROM stores s
          WHERE s.id = ${store.id} AND s.merchant_id = ${store.merchant_id} AND ${reachedBy(client_partner_id)}`)
      ).length === 1,
  };
}

export function partnerRepository(prisma: PrismaClient, sql: PreparedSql) {
  return {
    ...partnerRows(prisma),
    ...apiKeyRows(prisma),
    ...keyExpiryRows(prisma),
    ...webhookSettingRows(prisma),
    ...partnerStoreRows(sql),
  };
}
