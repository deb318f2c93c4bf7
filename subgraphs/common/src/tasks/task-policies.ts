/**
 * The retry policy of each task kind, by name: the waits before the first, second, ... retry, and what follows the
 * last of them (`dead`: no more attempts, the row stays for an operator; or a wait repeated for ever). The shape
 * of Hyperswitch's process tracker retry mapping (docs/decisions/operations.md "One durable task queue").
 */
export interface RetryPolicy {
  readonly delaysMs: readonly number[];
  /** After the listed waits: `dead`, or the wait every later retry takes. */
  readonly thenMs: number | "dead";
}

/** Waits starting at `firstMs` and doubling up to `maxMs`, which then repeats: a poll that never gives up. */
export function doubling(firstMs: number, maxMs: number): RetryPolicy {
  const delaysMs: number[] = [];
  for (let wait = firstMs; wait > 0 && wait < maxMs; wait *= 2) delaysMs.push(wait);
  return { delaysMs, thenMs: maxMs };
}

/** `attempts` tries in all, `waitMs` apart, then dead. */
export const evenly = (attempts: number, waitMs: number): RetryPolicy => ({
  delaysMs: Array.from({ length: Math.max(0, attempts - 1) }, () => waitMs),
  thenMs: "dead",
});

const MINUTE = 60_000;

export const retryPolicies = {
  /** E-mail and SMS: 10 s, 1 min, 5 min, 30 min, 2 h; a relay's or mail server's outage of an afternoon passes. */
  message: { delaysMs: [10_000, MINUTE, 5 * MINUTE, 30 * MINUTE, 120 * MINUTE], thenMs: "dead" },
  /** An accounting export file: five attempts in all, 30 minutes apart (docs/decisions/pos.md). */
  accounting_export: evenly(5, 30 * MINUTE),
  /** A merchant's push to the gateway: 1 s, 5 s, 25 s, 125 s, then with every full sync (15 min) and an alert. */
  gateway_sync: { delaysMs: [1000, 5000, 25_000, 125_000], thenMs: 15 * MINUTE },
  /** A provider refund whose answer was never written, asked about again: 1 min doubling to 15 min, for ever. */
  refund_recovery: doubling(MINUTE, 15 * MINUTE),
  /** A confirm attempt a crash left unfinished, finished or undone: 1 min doubling to 15 min, for ever. */
  confirm_recovery: doubling(MINUTE, 15 * MINUTE),
  /** An event's publish: 5 s doubling to 40 s, five attempts in all, so a bus outage of a minute loses no row. */
  event_outbox: { delaysMs: [5000, 10_000, 20_000, 40_000], thenMs: "dead" },
  /** A partner webhook: attempts at 0 s, 5 s and 25 s, then a dead letter the partner can have redelivered. */
  webhook_delivery: { delaysMs: [5000, 20_000], thenMs: "dead" },
  /** A store's card settlement exchange: 1 min, 5 min, 15 min, then failed; a short outage passes before the shops open. */
  card_exchange: { delaysMs: [MINUTE, 5 * MINUTE, 15 * MINUTE], thenMs: "dead" },
  /** A polled provider's payment: its poll interval doubling to 30 s while nothing moves (5, 10, 20, 30 s for 5 s). */
  provider_poll: (pollIntervalMs: number) => doubling(pollIntervalMs, 30_000),
} satisfies Record<string, RetryPolicy | ((...args: never[]) => RetryPolicy)>;

export type TaskKind =
  | "message"
  | "accounting_export"
  | "gateway_sync"
  | "refund_recovery"
  | "confirm_recovery"
  | "provider_poll"
  | "webhook_delivery"
  | "event_outbox"
  | "card_exchange"
  // Swept in one transaction each (`lockDue`), with no retry of their own: the next pass finds what is left.
  | "intent_expiry"
  | "pos_payment_recovery"
  | "pos_refund_recovery"
  | "pos_key_release";
