import { currentTraceparent, eventRow, type PaymentIntentEventType } from "@pos-cloud/common";
import type { PaymentIntent, Prisma } from "../../generated/prisma/client";

/**
 * The outbox row of an intent's event: the public intent as payload (`intentChanged` of the event catalogue), its
 * partner and time, and the trace of the change that wrote it; the row starts pending.
 */
export function intentEventRow(event_type: PaymentIntentEventType, intent: PaymentIntent, occurred_at: Date) {
  const metadata = { client_partner_id: intent.client_partner_id, occurred_at };
  return {
    ...eventRow(event_type, intent.id, { payment_intent: intent, metadata }, occurred_at),
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
 * Writes an event that is not an intent's status (`eventRow`), never sent to partners: a provider notification
 * arrived, or a payment reached an intent that could no longer take it (`late_payment.*`) and was refunded.
 */
export function appendEvent(tx: Prisma.TransactionClient, row: ReturnType<typeof eventRow>) {
  return tx.outboxEvent.create({ data: row });
}

/** The claim, publish and cleanup of outbox rows are the same in every subgraph's database. */
export {
  type ClaimedBatch,
  type OutboxRepository,
  type OutboxRow,
  outboxRepository,
  type PublishFailure,
} from "@pos-cloud/common/outbox";
