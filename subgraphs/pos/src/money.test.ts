import { describe, expect, it } from "vitest";
import { billTotals, MAX_SUBTOTAL, orderTotals, proportionalShares, sumTotals, taxOf } from "./money";

describe("order and bill money rules", () => {
  it("totals an order's items, less its discount, without tax", () => {
    expect(
      orderTotals(
        [
          { quantity: 2, unit_price: 480 },
          { quantity: 1, unit_price: 1200 },
        ],
        160,
      ),
    ).toEqual({ subtotal: 2160, discount_amount: 160, tax_amount: 0, total_amount: 2000 });
  });

  it("refuses a discount above the subtotal and a subtotal above the limit", () => {
    expect(() => orderTotals([{ quantity: 1, unit_price: 100 }], 101)).toThrow(
      expect.objectContaining({ details: { field: "discount_amount", constraint: "max" } }),
    );
    expect(() => orderTotals([{ quantity: 2, unit_price: MAX_SUBTOTAL }], 0)).toThrow(
      expect.objectContaining({ details: { field: "items", constraint: "max_total" } }),
    );
  });

  it("rounds tax down once per bill", () => {
    expect(taxOf(999, 10)).toBe(99);
    expect(taxOf(1005, 8)).toBe(80);
    expect(billTotals({ subtotal: 2160, discount_amount: 160 }, 10)).toEqual({
      subtotal: 2160,
      discount_amount: 160,
      tax_amount: 200,
      total_amount: 2200,
    });
    expect(billTotals({ subtotal: 1999, discount_amount: 0 }, 8).total_amount).toBe(1999 + 159);
  });

  it("sums combined bills", () => {
    const a = billTotals({ subtotal: 1000, discount_amount: 0 }, 10);
    const b = billTotals({ subtotal: 555, discount_amount: 55 }, 8);
    expect(sumTotals([a, b])).toEqual({ subtotal: 1555, discount_amount: 55, tax_amount: 140, total_amount: 1640 });
  });

  it("splits a total by item shares that add up exactly", () => {
    expect(proportionalShares(1100, [500, 500])).toEqual([550, 550]);
    expect(proportionalShares(1000, [1, 1, 1])).toEqual([334, 333, 333]);
    const shares = proportionalShares(2197, [480, 960, 557]);
    expect(shares.reduce((a, b) => a + b, 0)).toBe(2197);
    expect(shares).toEqual([528, 1056, 613]);
    expect(proportionalShares(0, [0, 0])).toEqual([0, 0]);
  });
});
