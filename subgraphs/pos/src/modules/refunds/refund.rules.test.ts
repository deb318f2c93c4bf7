import { describe, expect, it } from "vitest";
import { refundCreate } from "./refund.inputs";
import { posRefundMachine } from "./refund.machine";

const request = (fields: Record<string, unknown> = {}) => ({
  refund_amount: 500,
  reason: "wrong table",
  staff_code: "L5-001",
  ...fields,
});

// The rules of POS refunds that need no storage: what a refund request must carry, and that a refund is decided once.
describe("the rules of POS refunds", () => {
  it("needs a positive whole amount, a reason and the staff code that authorises it", () => {
    expect(refundCreate.parse(request({ reason: "  wrong table  " })).reason).toBe("wrong table");
    expect(refundCreate.safeParse(request({ refund_amount: 0 })).success).toBe(false);
    expect(refundCreate.safeParse(request({ refund_amount: 1.5 })).success).toBe(false);
    expect(refundCreate.safeParse(request({ reason: "   " })).success).toBe(false);
    expect(refundCreate.safeParse({ refund_amount: 500, reason: "x" }).success).toBe(false);
    expect(refundCreate.safeParse(request({ staff_pin: null })).success).toBe(true);
    expect(refundCreate.safeParse(request({ amount: 500 })).success).toBe(false);
  });

  it("is decided once: a succeeded or failed refund moves no more", () => {
    expect(posRefundMachine.transition("pending", "succeed")).toBe("succeeded");
    expect(posRefundMachine.transition("pending", "fail")).toBe("failed");
    for (const decided of ["succeeded", "failed"])
      for (const event of ["succeed", "fail"] as const)
        expect(() => posRefundMachine.transition(decided, event)).toThrow(
          expect.objectContaining({ code: "invalid_state" }),
        );
  });
});
