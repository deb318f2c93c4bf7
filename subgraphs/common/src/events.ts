import { z } from "zod";
import { newUlid } from "./ids";
import { paymentIntentStatuses } from "./payment-intent.machine";

/*
 * The catalogue of the events subgraphs publish to each other: every event type, the aggregate it is about and the
 * schema of its payload. Producers build their outbox rows through `eventRow`, which refuses a payload its schema does
 * not accept and keeps only the fields the schema names; consumers read a bus event or an outbox row with
 * `readEvent`, never by casting its payload (docs/decisions/events.md, "Events are typed contracts (issue 37)").
 */

/** A time as JSON carries it (ISO 8601, UTC); a producer may give the Date. */
const timestamp = z.union([z.iso.datetime(), z.date().transform((date) => date.toISOString())]);
const text = z.string().nullable();
const count = z.number().int();

/**
 * A PaymentIntent as the gateway's REST API answers it (the `PaymentIntentFields` fragment of
 * `rest-compat/src/operations/payment-intents.graphql`): what every event about an intent carries, never its row.
 */
export const publicPaymentIntent = z.object({
  id: z.string(),
  merchant_id: count,
  store_id: count,
  client_partner_id: count,
  merchant_ref_id: z.string(),
  merchant_store_id: text,
  merchant_terminal_id: text,
  order_id: text,
  amount: count,
  // Optional only for events written before captures could differ from the amount (issue 38).
  amount_capturable: count.optional(),
  amount_received: count.optional(),
  currency: z.string(),
  payment_method_types: z.array(z.string()),
  payment_method_type: text,
  processing_mode: z.string(),
  status: z.string().pipe(z.enum(paymentIntentStatuses)),
  provider_name: text,
  provider_transaction_id: text,
  failure_code: text,
  failure_message: text,
  description: text,
  metadata: z.unknown().pipe(z.record(z.string(), z.unknown())),
  captured_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  expires_at: timestamp,
});
export type PublicPaymentIntent = z.output<typeof publicPaymentIntent>;

/** A refund as the gateway's REST API answers it (the `PaymentRefundFields` fragment of `payment-flow.graphql`). */
export const publicRefund = z.object({
  id: z.string(),
  payment_intent_id: z.string(),
  amount: count,
  currency: z.string(),
  reason: text,
  merchant_ref_id: text,
  status: z.string(),
  provider_refund_id: text,
  failure_code: text,
  failure_message: text,
  created_at: timestamp,
  updated_at: timestamp,
});

const occurred = z.object({ occurred_at: timestamp });
const partnerOccurred = occurred.extend({ client_partner_id: count });

const intentChanged = z.object({ payment_intent: publicPaymentIntent, metadata: partnerOccurred });
const latePayment = z.object({ payment_intent: publicPaymentIntent, refund: publicRefund, metadata: occurred });

const providerWebhookReceived = z.object({
  provider_webhook: z.object({
    provider: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    provider_transaction_id: z.string(),
    status: z.string(),
    amount: count,
    currency: z.string(),
    refunded_amount: count,
    failure_code: text,
    failure_message: text,
    occurred_at: timestamp,
    payment_intent_id: z.string(),
  }),
  metadata: occurred,
});

const apiKeyExpiring = z.object({
  api_key: z.object({ id: z.string(), client_id: z.string(), expires_at: timestamp, days_before_expiry: count }),
  metadata: partnerOccurred,
});

const apiKeysRevoked = z.object({ client_partner_id: count, api_key_id: z.string().nullable() });

const auditRecorded = z.object({
  event: z.string(),
  timestamp,
  user_id: text,
  actor_type: z.string(),
  actor_id: text,
  ip_address: text,
  user_agent: text,
  success: z.boolean(),
  target: z.object({ type: z.string(), id: z.string() }).nullable(),
  place: z.object({ psp_id: count.nullish(), merchant_id: count.nullish(), store_id: count.nullish() }),
  metadata: z.record(z.string(), z.unknown()),
});

/*
 * The POS's store-feed objects: the columns its outbox triggers select (`pos_outbox_record`, migration
 * `pos_event_allow_list`), nothing else. A column added to a table reaches no event until it is named here and there.
 */
const posFields = { id: z.string(), merchant_id: count, store_id: count, status: z.string(), total_amount: count };

export const posOrder = z.object({
  ...posFields,
  order_number: z.string(),
  order_type: z.string(),
  bill_id: z.string().nullable(),
});
export const posBill = z.object({
  ...posFields,
  order_id: z.string().nullable(),
  bill_number: z.string(),
  paid_amount: count,
  refunded_amount: count,
});
export const posPayment = z.object({
  ...posFields,
  bill_id: z.string(),
  amount: count,
  tip_amount: count,
  method_type: z.string(),
  payment_intent_id: z.string().nullable(),
});

const event = <A extends string, P extends z.ZodType>(aggregate: A, payload: P) => ({ aggregate, payload });
const intentEvent = event("payment_intent", intentChanged);
const lateEvent = event("payment_intent", latePayment);
const orderEvent = event("order", z.object({ order: posOrder, metadata: occurred }));
const billEvent = event("bill", z.object({ bill: posBill, metadata: occurred }));
const posPaymentEvent = event("pos_payment", z.object({ pos_payment: posPayment, metadata: occurred }));

export const eventCatalogue = {
  "payment_intent.created": intentEvent,
  "payment_intent.requires_action": intentEvent,
  "payment_intent.processing": intentEvent,
  "payment_intent.succeeded": intentEvent,
  "payment_intent.failed": intentEvent,
  "payment_intent.cancelled": intentEvent,
  "payment_intent.cancelling": intentEvent,
  /** A payment that reached an intent which could no longer take it, and its refund: never sent to partners. */
  "late_payment.received": lateEvent,
  "late_payment.refunded": lateEvent,
  "late_payment.refund_failed": lateEvent,
  "provider_webhook.received": event("provider_webhook", providerWebhookReceived),
  "api_key.expiring": event("api_key", apiKeyExpiring),
  "api_keys.revoked": event("client_partner", apiKeysRevoked),
  "audit.recorded": event("audit", auditRecorded),
  "order.created": orderEvent,
  "order.updated": orderEvent,
  "bill.created": billEvent,
  "bill.updated": billEvent,
  "pos_payment.created": posPaymentEvent,
  "pos_payment.updated": posPaymentEvent,
} as const;

export type EventType = keyof typeof eventCatalogue;
export type EventPayload<T extends EventType> = z.output<(typeof eventCatalogue)[T]["payload"]>;
/** What a producer gives for a payload: times may be Dates, and fields the schema does not name are dropped. */
export type EventPayloadInput<T extends EventType> = z.input<(typeof eventCatalogue)[T]["payload"]>;
export type PaymentIntentEventType = Extract<EventType, `payment_intent.${string}`>;

export const isEventType = (type: string): type is EventType => Object.hasOwn(eventCatalogue, type);

/** An event read through the catalogue: its type narrows its payload. */
export type CataloguedEvent = {
  [T in EventType]: { event_type: T; aggregate_type: string; aggregate_id: string; payload: EventPayload<T> };
}[EventType];

/** A JSON value, as an outbox row's payload column holds it. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** A payload its schema refuses: a producer's mistake, never written; a consumer's, never acted on. */
export class EventContractError extends Error {
  constructor(event_type: string, error: z.ZodError) {
    super(`a ${event_type} event does not match its schema: ${z.prettifyError(error)}`);
    this.name = "EventContractError";
  }
}

function parsePayload(event_type: EventType, payload: unknown) {
  const parsed = eventCatalogue[event_type].payload.safeParse(payload);
  if (!parsed.success) throw new EventContractError(event_type, parsed.error);
  return parsed.data;
}

/**
 * The outbox row of an event, for the publishing subgraph's `outbox_events` in the transaction of its change: the
 * payload as its schema reads it, or an `EventContractError` and no row.
 */
export function eventRow<T extends EventType>(
  event_type: T,
  aggregate_id: string,
  payload: EventPayloadInput<T>,
  at: Date,
) {
  const stored: { [key: string]: Json } = JSON.parse(JSON.stringify(parsePayload(event_type, payload)));
  return {
    id: newUlid(at.getTime()),
    event_type,
    aggregate_type: eventCatalogue[event_type].aggregate,
    aggregate_id,
    payload: stored,
    created_at: at,
  };
}

/**
 * A published event (a bus event, an outbox row) with its payload read by its type's schema; undefined for a type
 * the catalogue does not hold (a newer producer's), an `EventContractError` for a payload its schema refuses.
 */
export function readEvent(event: {
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: unknown;
}): CataloguedEvent | undefined {
  const { event_type, aggregate_type, aggregate_id } = event;
  if (!isEventType(event_type)) return undefined;
  // The payload was parsed by the schema of `event_type` itself, which the compiler cannot pair with the type.
  return {
    event_type,
    aggregate_type,
    aggregate_id,
    payload: parsePayload(event_type, event.payload),
  } as CataloguedEvent;
}

/** The intent an event is about, for the events that carry one (an intent's moves, late payments). */
export function intentOfEvent(event: Parameters<typeof readEvent>[0]): PublicPaymentIntent | undefined {
  const read = readEvent(event);
  return read && "payment_intent" in read.payload ? read.payload.payment_intent : undefined;
}

/**
 * What an event of a store feed holds of its object (`payment_intent`, `order`, `bill`, `pos_payment`) and its time,
 * each field checked by the catalogue's schema of that object: the edge answers from these where it can and reads
 * what they lack; a payload its schema refuses gives nothing, so the edge reads it all.
 */
const feedPayload = z.object({
  payment_intent: publicPaymentIntent.partial().optional(),
  order: posOrder.partial().optional(),
  bill: posBill.partial().optional(),
  pos_payment: posPayment.partial().optional(),
  metadata: occurred.partial().optional(),
});

export function feedPartsOf(event: { payload: unknown }): z.output<typeof feedPayload> {
  const parsed = feedPayload.safeParse(event.payload);
  return parsed.success ? parsed.data : {};
}
