import { type CursorPage, newUlid, readPageByTime } from "@pos-cloud/common";
import { claimDue, lockDue, onPrisma, type TaskCensus, type TaskTable } from "@pos-cloud/common/tasks";
import { type PartnerWebhookDelivery, Prisma, type PrismaClient } from "../../generated/prisma/client";
import { type WebhookDeliveryEvent, webhookDeliveryMachine } from "./webhook-delivery.machine";

export type WebhookDeliveryRepository = ReturnType<typeof webhookDeliveryRepository>;

export type NewDelivery = Pick<
  PartnerWebhookDelivery,
  "id" | "source_event_id" | "client_partner_id" | "client_id" | "event_type" | "body" | "traceparent"
>;

/** A claimed delivery, and when it was due before its claim moved that to the lease's end. */
export type ClaimedDelivery = PartnerWebhookDelivery & { due_at: Date };

/** How an attempt ended, as written to its claimed row: the delivery's move, and what the attempt saw. */
export type AttemptRecord =
  | { event: "deliver"; status_code: number }
  | { event: "retry"; next_attempt_at: Date; status_code: number | null; error: string }
  | { event: "give_up"; status_code: number | null; error: string };

/** What a partner lists its deliveries by; `failed` is every delivery whose last attempt failed (pending or dead). */
export interface DeliveryFilter {
  client_id: string;
  status?: "pending" | "failed" | "delivered" | "dead" | "dropped";
  event_type?: string;
  created_after?: Date;
  created_before?: Date;
}

const statusWhere = (status: DeliveryFilter["status"]): Prisma.PartnerWebhookDeliveryWhereInput =>
  status === "failed"
    ? { OR: [{ status: "pending", attempts: { gt: 0 } }, { status: "dead" }] }
    : status === undefined
      ? {}
      : { status };

/** A delivery with its attempts, first attempt first. */
/** Pending deliveries are `webhook_delivery` tasks, oldest due first, then in the order they were made. */
const deliveryTasks: TaskTable = {
  kind: "webhook_delivery",
  table: "partner_webhook_deliveries",
  key: "id",
  due: "next_attempt_at",
  order: "next_attempt_at, created_at, id",
};

/** For the task gauges: a delivery's last failed attempt leaves it a dead letter. */
export const deliveryCensus: TaskCensus = {
  table: deliveryTasks,
  pending: Prisma.sql`status = 'pending'`,
  dead: Prisma.sql`status = 'dead'`,
};

const withAttempts = {
  attempt_log: { orderBy: [{ attempted_at: "asc" }, { id: "asc" }] },
} satisfies Prisma.PartnerWebhookDeliveryInclude;

/** Which dead letters a bulk redelivery sends first. */
export type RedeliveryOrder = "oldest_first" | "newest_first";

/** A conditional update's guard and new status, both from the machine's table. */
const moveBy = (event: WebhookDeliveryEvent) => ({
  from: { in: webhookDeliveryMachine.fromStates(event) },
  to: webhookDeliveryMachine.target(event).to,
});

export function webhookDeliveryRepository(prisma: PrismaClient) {
  return {
    /** New deliveries, due now; one that exists (the same event and client_id) is left as it is. */
    enqueue: (rows: NewDelivery[], now: Date) =>
      prisma.partnerWebhookDelivery.createMany({
        data: rows.map((row) => ({
          ...row,
          status: "pending",
          next_attempt_at: now,
          created_at: now,
          updated_at: now,
        })),
        skipDuplicates: true,
      }),

    /**
     * Claims up to `limit` due deliveries, oldest due first, skipping rows other workers hold (the task queue's
     * `claimDue`) and the client_ids in `skip`. A claimed row is due again only at `leaseUntil`: if its worker dies
     * mid-attempt, another takes it over then.
     */
    claimDue: async (now: Date, limit: number, leaseUntil: Date, skip: string[]) =>
      (
        await claimDue<ClaimedDelivery>(onPrisma(prisma), deliveryTasks, {
          where: Prisma.sql`status = 'pending'
            ${skip.length > 0 ? Prisma.sql`AND client_id NOT IN (${Prisma.join(skip)})` : Prisma.empty}`,
          now,
          leaseUntil,
          limit,
        })
      ).sort(
        (a, b) =>
          a.due_at.getTime() - b.due_at.getTime() ||
          a.created_at.getTime() - b.created_at.getTime() ||
          a.id.localeCompare(b.id),
      ),

    /** Gives claimed rows back unattempted, due when they were (so the order they are claimed in holds). */
    release: (rows: ClaimedDelivery[]) =>
      prisma.$transaction(
        rows.map((row) =>
          prisma.partnerWebhookDelivery.updateMany({
            where: { id: row.id, status: "pending" },
            data: { next_attempt_at: row.due_at },
          }),
        ),
      ),

    /**
     * Writes an attempt's outcome and keeps the attempt, unless the row changed since it was claimed (then the
     * attempt is not counted).
     */
    recordAttempt: (claimed: PartnerWebhookDelivery, outcome: AttemptRecord, now: Date, latency_ms: number) =>
      prisma.$transaction(async (tx) => {
        const { from, to } = moveBy(outcome.event);
        const { count } = await tx.partnerWebhookDelivery.updateMany({
          where: { id: claimed.id, status: from, attempts: claimed.attempts },
          data: {
            status: to,
            attempts: claimed.attempts + 1,
            last_status_code: outcome.status_code,
            last_error: outcome.event === "deliver" ? null : outcome.error,
            next_attempt_at: outcome.event === "retry" ? outcome.next_attempt_at : claimed.next_attempt_at,
            delivered_at: outcome.event === "deliver" ? now : null,
            updated_at: now,
          },
        });
        if (count === 0) return false;
        await tx.partnerWebhookAttempt.create({
          data: {
            id: `wha_${newUlid(now.getTime())}`,
            delivery_id: claimed.id,
            status_code: outcome.status_code,
            error: outcome.event === "deliver" ? null : outcome.error,
            latency_ms,
            attempted_at: now,
          },
        });
        return true;
      }),

    /** A delivery whose key lost its webhook (or was revoked) before it went out. */
    drop: (id: string, now: Date) => {
      const { from, to } = moveBy("drop");
      return prisma.partnerWebhookDelivery.updateMany({
        where: { id, status: from },
        data: { status: to, last_error: "the API key has no webhook any more", updated_at: now },
      });
    },

    find: (id: string) => prisma.partnerWebhookDelivery.findUnique({ where: { id } }),

    ...partnerDeliveryQueries(prisma),
    ...autoRedeliveryQueries(prisma),
  };
}

/** What admins and partners read and move: deliveries by filter, replays and redeliveries. */
function partnerDeliveryQueries(prisma: PrismaClient) {
  return {
    /** Deliveries, last changed first: of one client_id or of every key, in one status or any. */
    list: (filter: { client_id: string | null; status?: string }, limit: number) =>
      prisma.partnerWebhookDelivery.findMany({
        where: { status: filter.status, ...(filter.client_id === null ? {} : { client_id: filter.client_id }) },
        orderBy: { updated_at: "desc" },
        include: withAttempts,
        take: limit,
      }),

    /** How many deliveries are dead letters, of every key. */
    countDead: () => prisma.partnerWebhookDelivery.count({ where: { status: "dead" } }),

    /** A dead letter due again at once with its attempts anew; null when it is not (or no longer) dead. */
    async replay(id: string, now: Date) {
      const { from, to } = moveBy("replay");
      const { count } = await prisma.partnerWebhookDelivery.updateMany({
        where: { id, status: from },
        data: { status: to, attempts: 0, next_attempt_at: now, updated_at: now },
      });
      return count === 0 ? null : prisma.partnerWebhookDelivery.findUnique({ where: { id }, include: withAttempts });
    },

    /** One key's deliveries, newest first, each with its attempts. */
    page: (filter: DeliveryFilter, page: CursorPage) => {
      const where: Prisma.PartnerWebhookDeliveryWhereInput = {
        AND: [
          { client_id: filter.client_id, event_type: filter.event_type },
          { created_at: { gt: filter.created_after, lt: filter.created_before } },
          statusWhere(filter.status),
        ],
      };
      return readPageByTime(page, "desc", {
        rows: (take, after) =>
          prisma.partnerWebhookDelivery.findMany({
            where: { AND: [where, after] },
            orderBy: [{ created_at: "desc" }, { id: "desc" }],
            include: withAttempts,
            take,
            skip: page.offset,
          }),
        total: () => prisma.partnerWebhookDelivery.count({ where }),
      });
    },

    /**
     * A key's delivered or dead delivery due again at once, with a new round of attempts; null when it is in no
     * such state (any more). Rows in those states are never claimed, so no attempt of it is under way.
     */
    async redeliver(id: string, client_id: string, now: Date) {
      const { from, to } = moveBy("redeliver");
      const { count } = await prisma.partnerWebhookDelivery.updateMany({
        where: { id, client_id, status: from },
        data: { status: to, attempts: 0, next_attempt_at: now, updated_at: now },
      });
      return count === 0 ? null : prisma.partnerWebhookDelivery.findUnique({ where: { id }, include: withAttempts });
    },

    /**
     * Up to `limit` of a key's dead letters created at or after `since`, due again at once with a new round of
     * attempts, in `order`: they are due a millisecond apart in the past, so the dispatcher claims them in that order.
     * Rows another request is moving are skipped (that request queues them: the task queue's `lockDue`). The rows
     * queued, in that order.
     */
    redeliverDead: async (client_id: string, since: Date, now: Date, limit: number, order: RedeliveryOrder) => {
      const { to } = moveBy("redeliver");
      const direction = order === "oldest_first" ? "ASC" : "DESC";
      const rows = await prisma.$transaction(async (tx) => {
        const locked = await lockDue<{ id: string }>(
          onPrisma(tx),
          { ...deliveryTasks, order: `created_at ${direction}, id ${direction}` },
          { where: Prisma.sql`client_id = ${client_id} AND status = 'dead' AND created_at >= ${since}`, limit },
        );
        return tx.$queryRaw<{ id: string }[]>`UPDATE partner_webhook_deliveries d
          SET status = ${to}, attempts = 0, updated_at = ${now},
            next_attempt_at = ${now}::timestamptz - (${limit} - picked.n) * interval '1 millisecond'
          FROM unnest(${locked.map((row) => row.id)}::text[]) WITH ORDINALITY AS picked(id, n)
          WHERE d.id = picked.id
          RETURNING d.id`;
      });
      return prisma.partnerWebhookDelivery.findMany({
        where: { id: { in: rows.map((row) => row.id) } },
        orderBy: [{ next_attempt_at: "asc" }],
        include: withAttempts,
      });
    },

    /** The deliveries to one key of the given outbox events. */
    ofSources: (client_id: string, source_event_ids: string[]) =>
      prisma.partnerWebhookDelivery.findMany({ where: { client_id, source_event_id: { in: source_event_ids } } }),
  };
}

/** A key's automatic redelivery setting, and the keys whose endpoints to probe. */
function autoRedeliveryQueries(prisma: PrismaClient) {
  return {
    /** The key's automatic redelivery: its order, or off (no row). */
    autoRedeliveryOf: async (client_id: string) =>
      ((await prisma.partnerWebhookSetting.findUnique({ where: { client_id } }))?.auto_redelivery ?? "off") as
        | RedeliveryOrder
        | "off",

    setAutoRedelivery: (client_id: string, order: RedeliveryOrder | "off", now: Date) =>
      order === "off"
        ? prisma.partnerWebhookSetting.deleteMany({ where: { client_id } })
        : prisma.partnerWebhookSetting.upsert({
            where: { client_id },
            create: { client_id, auto_redelivery: order, updated_at: now },
            update: { auto_redelivery: order, updated_at: now },
          }),

    /** Keys with automatic redelivery on that have dead letters and nothing pending: whose endpoint to probe. */
    probeTargets: (limit: number) =>
      prisma.$queryRaw<{ client_id: string; auto_redelivery: RedeliveryOrder }[]>`
        SELECT s.client_id, s.auto_redelivery FROM partner_webhook_settings s
        WHERE EXISTS (SELECT 1 FROM partner_webhook_deliveries d WHERE d.client_id = s.client_id AND d.status = 'dead')
          AND NOT EXISTS (SELECT 1 FROM partner_webhook_deliveries d
            WHERE d.client_id = s.client_id AND d.status = 'pending')
        ORDER BY s.client_id LIMIT ${limit}`,
  };
}
