import { type PartnerWebhookDelivery, Prisma, type PrismaClient } from "../../generated/prisma/client";
import { type WebhookDeliveryEvent, webhookDeliveryMachine } from "./webhook-delivery.machine";

export type WebhookDeliveryRepository = ReturnType<typeof webhookDeliveryRepository>;

export type NewDelivery = Pick<
  PartnerWebhookDelivery,
  "id" | "source_event_id" | "client_partner_id" | "client_id" | "event_type" | "body"
>;

/** How an attempt ended, as written to its claimed row: the delivery's move, and what the attempt saw. */
export type AttemptRecord =
  | { event: "deliver"; status_code: number }
  | { event: "retry"; next_attempt_at: Date; status_code: number | null; error: string }
  | { event: "give_up"; status_code: number | null; error: string };

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
     * Claims up to `limit` due deliveries, oldest due first, skipping rows other workers hold (`FOR UPDATE SKIP
     * LOCKED`) and the client_ids in `skip`. A claimed row is due again only at `leaseUntil`: if its worker dies
     * mid-attempt, another takes it over then.
     */
    claimDue: (now: Date, limit: number, leaseUntil: Date, skip: string[]) =>
      prisma.$queryRaw<PartnerWebhookDelivery[]>`UPDATE partner_webhook_deliveries SET next_attempt_at = ${leaseUntil}
        WHERE id IN (SELECT id FROM partner_webhook_deliveries
          WHERE status = 'pending' AND next_attempt_at <= ${now}
            ${skip.length > 0 ? Prisma.sql`AND client_id NOT IN (${Prisma.join(skip)})` : Prisma.empty}
          ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING *`,

    /** Gives claimed rows back unattempted, due at once. */
    release: (ids: string[], now: Date) =>
      prisma.partnerWebhookDelivery.updateMany({
        where: { id: { in: ids }, status: "pending" },
        data: { next_attempt_at: now },
      }),

    /** Writes an attempt's outcome, unless the row changed since it was claimed (then the attempt is not counted). */
    recordAttempt: (claimed: PartnerWebhookDelivery, outcome: AttemptRecord, now: Date) => {
      const { from, to } = moveBy(outcome.event);
      return prisma.partnerWebhookDelivery.updateMany({
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
    },

    /** A delivery whose key lost its webhook (or was revoked) before it went out. */
    drop: (id: string, now: Date) => {
      const { from, to } = moveBy("drop");
      return prisma.partnerWebhookDelivery.updateMany({
        where: { id, status: from },
        data: { status: to, last_error: "the API key has no webhook any more", updated_at: now },
      });
    },

    find: (id: string) => prisma.partnerWebhookDelivery.findUnique({ where: { id } }),

    /** Deliveries, last changed first: of one client_id or of every key, in one status or any. */
    list: (filter: { client_id: string | null; status?: string }, limit: number) =>
      prisma.partnerWebhookDelivery.findMany({
        where: { status: filter.status, ...(filter.client_id === null ? {} : { client_id: filter.client_id }) },
        orderBy: { updated_at: "desc" },
        take: limit,
      }),

    /** A dead letter due again at once with its attempts anew; null when it is not (or no longer) dead. */
    async replay(id: string, now: Date) {
      const { from, to } = moveBy("replay");
      const { count } = await prisma.partnerWebhookDelivery.updateMany({
        where: { id, status: from },
        data: { status: to, attempts: 0, next_attempt_at: now, updated_at: now },
      });
      return count === 0 ? null : prisma.partnerWebhookDelivery.findUnique({ where: { id } });
    },
  };
}
