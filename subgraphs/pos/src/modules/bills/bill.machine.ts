import { AppError, stateMachine } from "@pos-cloud/common";

export const billStatuses = ["pending", "partial", "paid", "cancelled"] as const;
export type BillStatus = (typeof billStatuses)[number];

/**
 * The moves of a bill (and of each part of a split bill). Money in moves it from pending to partial (some paid) and to
 * paid (nothing remaining); only a bill nothing was paid on yet is split, combined or cancelled, so no payment is ever
 * orphaned. A combined bill's sources are cancelled and soft-deleted. Refunds give money back from a partial or paid
 * bill; a paid bill left with nothing paid is cancelled, as the spec's table says, and a partial one stays partial.
 */
export const billMachine = stateMachine({
  name: "bill",
  states: billStatuses,
  terminal: ["cancelled"],
  moves: [
    { from: "pending", event: "pay_in_part", to: "partial" },
    { from: "partial", event: "pay_in_part", to: "partial" },
    { from: "pending", event: "pay_in_full", to: "paid" },
    { from: "partial", event: "pay_in_full", to: "paid" },
    { from: "partial", event: "refund_in_part", to: "partial" },
    { from: "paid", event: "refund_in_part", to: "paid" },
    { from: "partial", event: "refund_in_full", to: "partial" },
    { from: "paid", event: "refund_in_full", to: "cancelled" },
    { from: "pending", event: "split", to: "pending" },
    { from: "pending", event: "combine", to: "cancelled" },
    { from: "pending", event: "cancel", to: "cancelled" },
  ],
});

export type BillEvent = Parameters<typeof billMachine.transition>[1];

/** The move of a bill by `event`; a bill combined into another takes none. */
export function requireBillMove(event: BillEvent, bill: { status: string; deleted_at: Date | null }) {
  if (bill.deleted_at !== null)
    throw new AppError("invalid_state", "the bill was combined into another bill", { status: bill.status, event });
  return billMachine.transition(bill.status, event);
}

/** Money in: in full when nothing remains to pay. */
export const paymentEvent = (paid: number, total: number): BillEvent => (paid >= total ? "pay_in_full" : "pay_in_part");

/** Money given back: in full when nothing paid is left. */
export const refundEvent = (paid: number): BillEvent => (paid === 0 ? "refund_in_full" : "refund_in_part");
