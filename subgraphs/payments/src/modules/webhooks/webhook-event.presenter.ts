import { paymentIntentTerminalEvents, readEvent } from "@pos-cloud/common";
import type { BusEvent } from "@pos-cloud/common/messaging";

/** The events partners receive: an intent's terminal states and their keys' coming expiry (the webhook-delivery topic carries no others). */
export const partnerEventTypes: ReadonlySet<string> = new Set([...paymentIntentTerminalEvents, "api_key.expiring"]);

/** A partner event read through the event catalogue: its partner, its time and its webhook `data`. */
export function partnerEvent(event: BusEvent) {
  const read = readEvent(event);
  if (!read || !partnerEventTypes.has(read.event_type)) throw new Error(`partners are not sent ${event.event_type}`);
  if (read.event_type === "api_key.expiring") {
    const { api_key, metadata } = read.payload;
    return { client_partner_id: metadata.client_partner_id, occurred_at: metadata.occurred_at, data: api_key };
  }
  if (!("payment_intent" in read.payload) || !("client_partner_id" in read.payload.metadata))
    throw new Error(`partners are not sent ${event.event_type}`);
  const { payment_intent: intent, metadata } = read.payload;
  // Failed and cancelled events also say why (`failure_code`, `failure_message`).
  const data = {
    id: intent.id,
    status: intent.status,
    amount: intent.amount,
    currency: intent.currency,
    store_id: intent.store_id,
    merchant_ref_id: intent.merchant_ref_id,
    captured_at: intent.captured_at,
    ...(read.event_type === "payment_intent.succeeded"
      ? {}
      : { failure_code: intent.failure_code, failure_message: intent.failure_message }),
  };
  return { client_partner_id: metadata.client_partner_id, occurred_at: metadata.occurred_at, data };
}

/** The JSON body a partner receives, built once per delivery so every attempt sends the same bytes. */
export function webhookBody(id: string, event: BusEvent): string {
  const { occurred_at, data } = partnerEvent(event);
  return JSON.stringify({ id, type: event.event_type, created_at: occurred_at, data });
}
