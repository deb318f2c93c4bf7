import { AppError, derivedUlid, mapPage, parseCursorPage, parseInput, withoutNulls } from "@pos-cloud/common";
import { busEventOf, type OutboxRow } from "@pos-cloud/common/outbox";
import type { Clock } from "../../clock";
import type { PartnerWebhookDelivery } from "../../generated/prisma/client";
import type { OutboxService } from "../outbox";
import { deliveryFilter, eventFilter, redeliverySince } from "./webhook.inputs";
import { webhookDeliveryMachine } from "./webhook-delivery.machine";
import type { WebhookDeliveryRepository } from "./webhook-delivery.repository";
import { partnerEventTypes, webhookBody } from "./webhook-event.presenter";

/** The most dead letters one bulk redelivery queues; the answer says when more wait. */
export const REDELIVERY_BATCH = 100;

/** How many keys one probe pass looks at. */
const PROBE_BATCH = 100;

const EVERY_DEAD_LETTER = new Date(0);

/**
 * The id a partner's key sees for an outbox event: derived from the event and the key, so the events list names an
 * event as its webhook does before, while and after it is delivered (`enqueueDeliveries` uses it too).
 */
export const partnerEventId = (sourceEventId: string, client_id: string, time: number) =>
  `evt_${derivedUlid(time, `${sourceEventId}/${client_id}`)}`;

/** An event as the partner's key was (or would have been) sent it: the delivery's body, or the same built anew. */
function presentEvent(row: OutboxRow, client_id: string, delivery: PartnerWebhookDelivery | undefined) {
  const id = delivery?.id ?? partnerEventId(row.id, client_id, row.created_at.getTime());
  const body = JSON.parse(delivery?.body ?? webhookBody(id, busEventOf(row))) as { created_at: string; data: unknown };
  return {
    id,
    type: row.event_type,
    created_at: body.created_at,
    data: body.data,
    delivery_status: delivery?.status ?? null,
  };
}

/**
 * What a partner recovers missed webhooks with, for a key already checked against the caller: its deliveries with
 * their attempts, redelivery (one, or its dead letters since a time) and the events it was or would have been sent.
 */
export function webhookRecovery(deps: {
  deliveries: WebhookDeliveryRepository;
  outbox: OutboxService;
  clock: Clock;
  onDue: () => void;
}) {
  const { deliveries, outbox, clock } = deps;
  return {
    deliveriesPage(
      client_id: string,
      args: Record<string, unknown> & { limit?: number | null; after?: string | null },
    ) {
      const { limit, after, ...filter } = args;
      const page = parseCursorPage({ limit, after });
      const parsed = parseInput(deliveryFilter, withoutNulls(filter));
      return deliveries.page({ client_id, ...parsed }, page);
    },

    /** A delivered or dead delivery of the key, due again with the same event id and body and a new round of attempts. */
    async redeliver(client_id: string, id: string) {
      const delivery = await deliveries.find(id);
      if (!delivery || delivery.client_id !== client_id) {
        throw new AppError("not_found", "webhook delivery not found", { field: "id" });
      }
      webhookDeliveryMachine.transition(delivery.status, "redeliver");
      const queued = await deliveries.redeliver(id, client_id, clock());
      if (!queued) throw new AppError("invalid_state", "the delivery was queued meanwhile", { event: "redeliver" });
      deps.onDue();
      return queued;
    },

    /** The key's dead letters created since `since`, oldest first, up to a batch; `has_more` when more wait. */
    async redeliverDeadSince(client_id: string, input: { since?: unknown }) {
      const { since } = parseInput(redeliverySince, input);
      const queued = await deliveries.redeliverDead(client_id, since, clock(), REDELIVERY_BATCH + 1, "oldest_first");
      if (queued.length > 0) deps.onDue();
      return { queued, has_more: queued.length > REDELIVERY_BATCH };
    },

    /**
     * The endpoint of a key with automatic redelivery answered 2xx: its dead letters go again, a batch at a time (the
     * next batch when one of these is delivered), in the key's order.
     */
    async afterDelivered(client_id: string) {
      const order = await deliveries.autoRedeliveryOf(client_id);
      if (order === "off") return;
      const queued = await deliveries.redeliverDead(client_id, EVERY_DEAD_LETTER, clock(), REDELIVERY_BATCH, order);
      if (queued.length > 0) deps.onDue();
    },

    /**
     * For keys with automatic redelivery, dead letters and nothing pending: one dead letter queued again, the first
     * in the key's order, whose delivery tells whether the endpoint is back (then the rest follow).
     */
    async probeDeadLetters(): Promise<number> {
      let probed = 0;
      for (const { client_id, auto_redelivery } of await deliveries.probeTargets(PROBE_BATCH)) {
        probed += (await deliveries.redeliverDead(client_id, EVERY_DEAD_LETTER, clock(), 1, auto_redelivery)).length;
      }
      if (probed > 0) deps.onDue();
      return probed;
    },

    async events(
      client_id: string,
      client_partner_id: number,
      args: { type?: string | null; created_after?: Date | null; limit?: number | null; after?: string | null },
    ) {
      const { type, created_after } = parseInput(
        eventFilter,
        withoutNulls({ type: args.type, created_after: args.created_after }),
      );
      const { limit } = parseCursorPage({ limit: args.limit });
      const page = await outbox.partnerEvents({
        client_partner_id,
        types: type ? [type] : [...partnerEventTypes],
        created_after,
        after: args.after,
        limit,
      });
      const sent = await deliveries.ofSources(
        client_id,
        page.nodes.map((row) => row.id),
      );
      const bySource = new Map(sent.map((delivery) => [delivery.source_event_id, delivery]));
      return mapPage(page, (row) => presentEvent(row, client_id, bySource.get(row.id)));
    },
  };
}
