import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { billCombine, billSplit } from "./bill.inputs";
import { paymentEvent, refundEvent, requireBillMove } from "./bill.machine";

// The rules of bills that need no storage: what a split and a combine may ask, and which move money makes.
describe("the rules of bills", () => {
  it("moves a bill to paid when nothing remains to pay, else keeps it partial", () => {
    expect(requireBillMove(paymentEvent(500, 1000), { status: "pending", deleted_at: null })).toBe("partial");
    expect(requireBillMove(paymentEvent(1000, 1000), { status: "partial", deleted_at: null })).toBe("paid");
    expect(requireBillMove(paymentEvent(1200, 1000), { status: "pending", deleted_at: null })).toBe("paid");
  });

  it("cancels a paid bill refunded in full, and keeps a partial one partial", () => {
    expect(requireBillMove(refundEvent(0), { status: "paid", deleted_at: null })).toBe("cancelled");
    expect(requireBillMove(refundEvent(300), { status: "paid", deleted_at: null })).toBe("paid");
    expect(requireBillMove(refundEvent(0), { status: "partial", deleted_at: null })).toBe("partial");
  });

  it("refuses any move of a bill combined into another, naming its state and the event", () => {
    expect(() => requireBillMove("pay_in_full", { status: "pending", deleted_at: new Date() })).toThrow(
      expect.objectContaining({ code: "invalid_state", details: { status: "pending", event: "pay_in_full" } }),
    );
  });

  it("splits by amounts or by items, in two to twenty parts, never both ways at once", () => {
    const item = () => [randomUUID()];
    expect(billSplit.safeParse({ splits: [{ amount: 500 }, { amount: 700 }] }).success).toBe(true);
    expect(billSplit.safeParse({ splits: [{ item_ids: item() }, { item_ids: item() }] }).success).toBe(true);
    expect(billSplit.safeParse({ splits: [{ amount: 500 }, { item_ids: item() }] }).success).toBe(false);
    expect(billSplit.safeParse({ splits: [{ amount: 500 }] }).success).toBe(false);
    expect(billSplit.safeParse({ splits: Array.from({ length: 21 }, () => ({ amount: 1 })) }).success).toBe(false);
    expect(billSplit.safeParse({ splits: [{ amount: 0 }, { amount: 700 }] }).success).toBe(false);
  });

  it("combines two to twenty tables, each once", () => {
    expect(billCombine.safeParse({ table_numbers: ["T1", "T2"], staff_code: "S1" }).success).toBe(true);
    expect(billCombine.safeParse({ table_numbers: ["T1", "T1"], staff_code: "S1" }).success).toBe(false);
    expect(billCombine.safeParse({ table_numbers: ["T1"], staff_code: "S1" }).success).toBe(false);
  });
});
