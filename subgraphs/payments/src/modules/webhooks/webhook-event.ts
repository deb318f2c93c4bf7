import { paymentIntentTerminalEvents } from "@pos-cloud/common";
import type { BusEvent } from "@pos-cloud/common/messaging";

/** The events partners receive: an intent's terminal states and their keys' coming expiry (the webhook-delivery topic carries no others). */
export const partnerEventTypes: ReadonlySet<string> = new Set([...paymentIntentTerminalEvents, "api_key.expiring"]);

/** The intent (if any) and its partner as the outbox payload carries them (`intentEventRow`, key expiry). */
export function eventIntent(event: BusEvent) {
  const intent = (event.payload.payment_intent ?? {}) as Record<string, unknown>;
  const metadata = (event.payload.metadata ?? {}) as Record<string, unknown>;
  const client_partner_id = Number(metadata.client_partner_id ?? intent.client_partner_id);
  const occurred_at = typeof metadata.occurred_at === "string" ? metadata.occurred_at : event.created_at;
  return { intent, client_partner_id, occurred_at };
}

/**
 * The JSON body a partner receives, built once per delivery so every attempt sends the same bytes. Failed and
 * cancelled events also say why (`failure_code`, `failure_message`).
 */
export function webhookBody(id: string, event: BusEvent): string {
  const { intent, occurred_at } = eventIntent(event);
  if (event.event_type === "api_key.expiring") {
    return JSON.stringify({ id, type: event.event_type, created_at: occurred_at, data: event.payload.api_key });
  }
  const data: Record<string, unknown> = {
    id: intent.id,
    status: intent.status,
    amount: intent.amount,
    currency: intent.currency,
    store_id: intent.store_id,
    merchant_ref_id: intent.merchant_ref_id,
    captured_at: intent.captured_at ?? null,
  };
  if (event.event_type !== "payment_intent.succeeded") {
    data.failure_code = intent.failure_code ?? null;
    data.failure_message = intent.failure_message ?? null;
  }
  return JSON.stringify({ id, type: event.event_type, created_at: occurred_at, data });
}
