import { TerminalApiError } from "./errors";
import type { QueuedEntry, Uploaded } from "./offline-store";
import type { TerminalClient } from "./terminal";

/**
 * Whether a failed attempt is tried again: no answer (the network, a timeout), the platform's own trouble (5xx, 408,
 * 429), a key whose first request is still being processed (409 `idempotency_conflict`: the entry resends its own
 * body, so a conflict is never another request), and a device token refused even after a new assertion (401: the
 * device's credential, not the sale), unless the refusal says the store or merchant was deactivated. Any other 4xx
 * is the platform's answer on the entry itself: it is refused.
 */
export function retryable(error: unknown): boolean {
  if (!(error instanceof TerminalApiError)) return true;
  if (error.status >= 500 || [408, 429].includes(error.status)) return true;
  if (error.status === 401) return !String(error.details.reason ?? "").endsWith("_inactive");
  return error.code === "idempotency_conflict";
}

/** The platform id an entry names: an earlier entry's result, or an id given as it is. */
export type Resolve = (ref: { entry: string } | string) => string;

/**
 * Sends an entry with its Idempotency-Key and `occurred_at`. Every route the queue uses honours the key, so an entry
 * that may already have reached the platform is sent again as it is: the platform answers what the first attempt made.
 */
export async function sendEntry(terminal: TerminalClient, entry: QueuedEntry, resolve: Resolve): Promise<Uploaded> {
  const { id: key, occurred_at } = entry;
  switch (entry.kind) {
    case "order":
      return terminal.orders.create({ ...entry.body, occurred_at }, key);
    case "bill": {
      const { order, ...bill } = entry.body;
      return terminal.bills.create({ ...bill, order_id: resolve(order), occurred_at }, key);
    }
    case "payment": {
      const { bill, ...payment } = entry.body;
      return terminal.payments.create(
        { ...payment, bill_id: resolve(bill), payment_method: { type: "CASH" }, occurred_at },
        key,
      );
    }
  }
}
