import type { PlatformErrorBody } from "./errors";

/** Where an offline entry gets a platform id from: an earlier entry of the queue, or a record already on the platform. */
export type QueuedRef = { entry: string } | string;

export interface QueuedOrder {
  kind: "order";
  body: {
    order_type: "dine_in" | "takeaway" | "delivery";
    table_number?: string;
    customer_id?: string;
    discount_amount?: number;
    items: { sequence: number; item_name: string; quantity: number; unit_price: number }[];
  };
}

export interface QueuedBill {
  kind: "bill";
  body: { order: QueuedRef; staff_code: string; tax_percentage: number };
}

export interface QueuedCashPayment {
  kind: "payment";
  body: { bill: QueuedRef; amount: number; cash_received?: number };
}

/**
 * One piece of work done offline. Its `id` is its Idempotency-Key on every attempt; `occurred_at` is when it
 * happened on the terminal's clock, sent as the platform's `occurred_at`.
 */
export type QueuedEntry = (QueuedOrder | QueuedBill | QueuedCashPayment) & { id: string; occurred_at: string };

/** What the platform made of an entry: the id of its order, bill or payment. */
export interface Uploaded {
  id: string;
}

/**
 * The queue's history, one record per step, in the order they happened. `sending` was written before each attempt by
 * queues that looked orders up by their time before sending them again; it is read and ignored.
 */
export type QueueRecord =
  | { type: "added"; entry: QueuedEntry }
  | { type: "sending"; id: string }
  | { type: "done"; id: string; result: Uploaded }
  | { type: "refused"; id: string; status: number; error: PlatformErrorBody };

/**
 * Where the queue lives. `append` returns once the record is durable; `replace` swaps the whole history for a
 * shorter one at once (a crash leaves either the old or the new, never a mix).
 */
export interface OfflineStore {
  load(): Promise<QueueRecord[]>;
  append(record: QueueRecord): Promise<void>;
  replace(records: QueueRecord[]): Promise<void>;
}
