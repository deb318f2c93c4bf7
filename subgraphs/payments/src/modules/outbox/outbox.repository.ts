import { currentTraceparent, newUlid } from "@pos-cloud/common";
import type { PaymentIntent, Prisma } from "../../generated/prisma/client";

export type PaymentIntentEventType =
  | "payment_intent.created"
  | "payment_intent.requires_action"
  | "payment_intent.processing"
  | "payment_intent.succeeded"
  | "payment_intent.failed"
  | "payment_intent.cancelled"
  | "payment_intent.cancelling";

/**
 * The outbox row of an intent's event: its id, type and the full intent as payload, and the trace of the change that
 * wrote it; the row starts pending.
 */
export function intentEventRow(event_type: PaymentIntentEventType, intent: PaymentIntent, occurred_at: Date) {
  return {
    id: newUlid(occurred_at.getTime()),
    event_type,
    aggregate_type: "payment_intent",
    aggregate_id: intent.id,
    payload: {
      payment_intent: JSON.parse(JSON.stringify(intent)),
      metadata: { client_partner_id: intent.client_partner_id, occurred_at: occurred_at.toISOString() },
    },
    created_at: occurred_at,
    traceparent: currentTraceparent(),
  };
}

/**
 * Writes a domain event as a pending outbox row. It takes the transaction of the change it records, so the change
 * and its event commit together or not at all; a publisher claims pending rows later.
 */
export function appendIntentEvent(
  tx: Prisma.TransactionClient,
  event_type: PaymentIntentEventType,
  intent: PaymentIntent,
  occurred_at: Date,
) {
  return tx.outboxEvent.create({ data: intentEventRow(event_type, intent, occurred_at) });
}

/**
 * Events that are not an intent's status, never sent to partners: a provider notification arrived, or a payment
 * reached an intent that could no longer take it (`late_payment.*`, aggregate `payment_intent`) and was refunded.
 */
export type InternalEventType =
  | "provider_webhook.received"
  | "late_payment.received"
  | "late_payment.refunded"
  | "late_payment.refund_failed";

export function appendInternalEvent(
  tx: Prisma.TransactionClient,
  event_type: InternalEventType,
  aggregate: { type: string; id: string },
  payload: Record<string, unknown>,
  occurred_at: Date,
) {
  return tx.outboxEvent.create({
    data: {
      id: newUlid(occurred_at.getTime()),
      event_type,
      aggregate_type: aggregate.type,
      aggregate_id: aggregate.id,
      payload: JSON.parse(JSON.stringify({ ...payload, metadata: { occurred_at: occurred_at.toISOString() } })),
      created_at: occurred_at,
    },
  });
}

/** The claim, publish and cleanup of outbox rows are the same in every subgraph's database. */
export {
  type ClaimedBatch,
  type OutboxRepository,
  type OutboxRow,
  outboxRepository,
  type PublishFailure,
} from "@pos-cloud/common/outbox";
