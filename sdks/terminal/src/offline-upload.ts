import { TerminalApiError } from "./errors";
import type { QueuedEntry, Uploaded } from "./offline-store";
import type { TerminalClient } from "./terminal";

/** The platform's clock may be this far behind the terminal's: it refuses an `occurred_at` later than its now + 5 min. */
const CLOCK_SKEW_MS = 5 * 60_000;

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

/** Sends an entry, each with its Idempotency-Key and `occurred_at`. */
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

/**
 * What an entry that may already have reached the platform made there. The platform takes no Idempotency-Key on
 * orders and bills (docs/decisions/pos.md, "Sales recorded offline"), so they are looked up: the device's order with
 * the entry's `occurred_at` (unique per device, the queue makes it so), the bill of the entry's order. A cash
 * payment carries a key the platform honours: sending it again answers the first payment, so it is not looked up.
 */
export async function lookUpEntry(
  terminal: TerminalClient,
  entry: QueuedEntry,
  resolve: Resolve,
): Promise<Uploaded | undefined> {
  if (entry.kind === "bill") {
    const order = await terminal.orders.get(resolve(entry.body.order));
    return order.bill_id ? { id: order.bill_id } : undefined;
  }
  if (entry.kind !== "order") return undefined;
  const { deviceId } = await terminal.tokens.identity();
  const happened = Date.parse(entry.occurred_at);
  const query = { device_id: deviceId, from: new Date(happened - CLOCK_SKEW_MS).toISOString(), limit: 100 };
  for (let after: string | undefined; ; ) {
    const { data, error, response } = await terminal.api.GET("/api/v1/orders", {
      params: { query: { ...query, after } },
    });
    if (!data) throw TerminalApiError.of(response.status, error);
    const found = data.find((order) => Date.parse(order.occurred_at) === happened);
    if (found) return { id: found.id };
    const next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1];
    after = next && (new URL(next, "http://link.invalid").searchParams.get("after") ?? undefined);
    if (!after) return undefined;
  }
}
