import { AppError } from "@pos-cloud/common";

export const billStatuses = ["pending", "partial", "paid", "cancelled"] as const;
export type BillStatus = (typeof billStatuses)[number];

/**
 * The moves of a bill. Money in moves it from pending to partial (some paid) and to paid (nothing remaining); only a
 * bill nothing was paid on yet is split, combined or cancelled, so no payment is ever orphaned. A combined bill's
 * sources are cancelled and soft-deleted. Refunds give money back from a partial or paid bill; a paid bill left with
 * nothing paid is cancelled, as the spec's table says. Every other move is refused.
 */
export const billMoves = {
  pay: { from: ["pending", "partial"] },
  refund: { from: ["partial", "paid"] },
  split: { from: ["pending"] },
  combine: { from: ["pending"] },
  cancel: { from: ["pending"] },
} as const satisfies Record<string, { from: readonly BillStatus[] }>;

export type BillMove = keyof typeof billMoves;

export function requireBillMove(move: BillMove, bill: { status: string; deleted_at: Date | null }) {
  const { from } = billMoves[move];
  if (bill.deleted_at !== null)
    throw new AppError("invalid_state", "the bill was combined into another bill", { status: bill.status });
  if (!(from as readonly string[]).includes(bill.status))
    throw new AppError(
      "invalid_state",
      `a ${bill.status} bill cannot ${move === "pay" ? "take a payment" : move === "refund" ? "give a refund" : move}`,
      {
        status: bill.status,
        allowed_from: from,
      },
    );
}

/** Where money in leaves a bill or a split: paid when nothing remains, else partial. */
export const statusAfterPayment = (paid: number, total: number): BillStatus => (paid >= total ? "paid" : "partial");

/** Where money given back leaves a bill: a paid bill with nothing paid left is cancelled, else it stays where it was. */
export const statusAfterRefund = (status: BillStatus, paid: number): BillStatus =>
  status === "paid" && paid === 0 ? "cancelled" : status;
