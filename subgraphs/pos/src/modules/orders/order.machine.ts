import { stateMachine } from "@pos-cloud/common";

export const orderStatuses = ["open", "billed", "completed", "cancelled"] as const;
export type OrderStatus = (typeof orderStatuses)[number];

/**
 * The moves of an order: billing takes an open order, cancelling the bill gives it back, paying the bill in full
 * completes it; only an open order is edited or cancelled. Every other move is refused.
 */
export const orderMachine = stateMachine({
  name: "order",
  states: orderStatuses,
  terminal: ["completed", "cancelled"],
  moves: [
    { from: "open", event: "edit", to: "open" },
    { from: "open", event: "cancel", to: "cancelled" },
    { from: "open", event: "bill", to: "billed" },
    { from: "billed", event: "reopen", to: "open" },
    { from: "billed", event: "complete", to: "completed" },
  ],
});
