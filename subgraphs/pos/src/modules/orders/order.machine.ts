import { AppError } from "@pos-cloud/common";

export const orderStatuses = ["open", "billed", "completed", "cancelled"] as const;
export type OrderStatus = (typeof orderStatuses)[number];

/**
 * The moves of an order: billing takes an open order, cancelling the bill gives it back, paying the bill in full
 * completes it; only an open order is edited or cancelled. Every other move is refused.
 */
export const orderMoves = {
  edit: { from: ["open"], to: "open" },
  cancel: { from: ["open"], to: "cancelled" },
  bill: { from: ["open"], to: "billed" },
  reopen: { from: ["billed"], to: "open" },
  complete: { from: ["billed"], to: "completed" },
} as const satisfies Record<string, { from: readonly OrderStatus[]; to: OrderStatus }>;

export type OrderMove = keyof typeof orderMoves;

export function requireOrderMove(move: OrderMove, status: string) {
  const { from } = orderMoves[move];
  if (!(from as readonly string[]).includes(status))
    throw new AppError("invalid_state", `a ${status} order cannot ${move === "edit" ? "be changed" : move}`, {
      status,
      allowed_from: from,
    });
  return orderMoves[move];
}
