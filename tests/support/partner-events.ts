import { randomBytes } from "node:crypto";
import type { BusEvent } from "@pos-cloud/common/messaging";

/**
 * A terminal intent event of a partner as the outbox publisher puts it on the webhook-delivery topic, at `at`; the
 * intent id is fresh unless given (a second event of one intent).
 */
export function terminalIntentEvent(client_partner_id: number, at: Date, status = "succeeded", intentId?: string) {
  const occurred_at = at.toISOString();
  // Every field of the public intent, as the event catalogue's schema of intent events wants them.
  const intent = {
    id: intentId ?? `pi_${randomBytes(8).toString("hex")}`,
    merchant_id: 3,
    store_id: 7,
    client_partner_id,
    merchant_ref_id: `ref-${randomBytes(4).toString("hex")}`,
    merchant_store_id: null,
    merchant_terminal_id: null,
    order_id: null,
    amount: 1200,
    currency: "JPY",
    payment_method_types: ["qr_mpm"],
    payment_method_type: "qr_mpm",
    processing_mode: "pgw_processed",
    status,
    provider_name: "sandbox",
    provider_transaction_id: null,
    failure_code: status === "failed" ? "card_declined" : null,
    failure_message: status === "failed" ? "declined" : null,
    description: null,
    metadata: {},
    captured_at: status === "succeeded" ? occurred_at : null,
    created_at: occurred_at,
    updated_at: occurred_at,
    expires_at: occurred_at,
  };
  return {
    id: randomBytes(13).toString("hex").toUpperCase(),
    event_type: `payment_intent.${status}`,
    aggregate_type: "payment_intent",
    aggregate_id: intent.id,
    payload: { payment_intent: intent, metadata: { client_partner_id, occurred_at } },
    created_at: occurred_at,
  } satisfies BusEvent;
}

/** Group webhook bodies (or listed events) by the intent they tell of, each group in the order given. */
export function byIntent(events: { type: string; created_at: string; data: { id: string } }[]) {
  const groups = new Map<string, { type: string; created_at: string }[]>();
  for (const event of events) groups.set(event.data.id, [...(groups.get(event.data.id) ?? []), event]);
  return groups;
}
