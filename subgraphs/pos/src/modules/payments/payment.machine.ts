import { stateMachine } from "@pos-cloud/common";

/** A POS payment's states and moves (spec, "Payment status (POS service)"). */
export const paymentStatuses = ["pending", "processing", "completed", "failed", "refunded"] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

/**
 * A payment whose money is not yet decided: it holds its amount on the bill. Nothing moves a payment to processing
 * yet; it is in the spec's states, and in flight like pending.
 */
export const inFlight = ["pending", "processing"] as const satisfies PaymentStatus[];

export const paymentMachine = stateMachine({
  name: "payment",
  states: paymentStatuses,
  terminal: ["failed", "refunded"],
  moves: [
    // Cash once the gateway recorded it, a card result, a QR intent that succeeded.
    ...inFlight.map((from) => ({ from, event: "complete" as const, to: "completed" as const })),
    // Declined, cancelled or expired at the gateway, or the gateway unreachable while starting.
    ...inFlight.map((from) => ({ from, event: "fail" as const, to: "failed" as const })),
    // A QR payment the gateway completed for a bill that can no longer take it: undone in the same transaction.
    { from: "completed", event: "bill_refused", to: "failed" },
    { from: "completed", event: "refund_in_part", to: "completed" },
    { from: "completed", event: "refund_in_full", to: "refunded" },
  ],
});
