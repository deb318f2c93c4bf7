import { invalidField } from "@pos-cloud/common";

/*
 * The money rules of orders and bills, in integer minor units (JPY has none: yen). Prices are before tax; tax is
 * charged once per bill on what the bill sells after its discount, rounded down to the minor unit (the per-invoice,
 * per-rate rounding of Japan's qualified invoices). Every amount stays within a PostgreSQL integer.
 */

/** The most an order may sell before tax: with tax of at most 100%, every total fits in an integer column. */
export const MAX_SUBTOTAL = 1_000_000_000;
/** The most a bill, combined ones included, may ask for. */
export const MAX_TOTAL = 2_000_000_000;

export interface PricedItem {
  quantity: number;
  unit_price: number;
}

export interface Totals {
  subtotal: number;
  discount_amount: number;
  tax_amount: number;
  total_amount: number;
}

export const itemSubtotal = (item: PricedItem) => item.quantity * item.unit_price;

/** An order's totals before billing: no tax yet. The discount may not exceed what the items sell for. */
export function orderTotals(items: PricedItem[], discount: number): Totals {
  const subtotal = items.reduce((sum, item) => sum + itemSubtotal(item), 0);
  if (subtotal > MAX_SUBTOTAL) throw invalidField("items", "max_total", `an order sells at most ${MAX_SUBTOTAL}`);
  if (discount > subtotal)
    throw invalidField("discount_amount", "max", "discount_amount cannot exceed the items' subtotal");
  return { subtotal, discount_amount: discount, tax_amount: 0, total_amount: subtotal - discount };
}

/** Tax on a taxable amount at a whole percentage, rounded down. */
export const taxOf = (taxable: number, percentage: number) => Math.floor((taxable * percentage) / 100);

/** A bill's amounts from its order's subtotal and discount and the tax rate given at billing. */
export function billTotals(order: { subtotal: number; discount_amount: number }, taxPercentage: number): Totals {
  const taxable = order.subtotal - order.discount_amount;
  const tax_amount = taxOf(taxable, taxPercentage);
  return {
    subtotal: order.subtotal,
    discount_amount: order.discount_amount,
    tax_amount,
    total_amount: taxable + tax_amount,
  };
}

/** The sum of several bills' amounts (a combined bill). */
export function sumTotals(parts: Totals[]): Totals {
  const sum = (key: keyof Totals) => parts.reduce((total, part) => total + part[key], 0);
  const totals = {
    subtotal: sum("subtotal"),
    discount_amount: sum("discount_amount"),
    tax_amount: sum("tax_amount"),
    total_amount: sum("total_amount"),
  };
  if (totals.total_amount > MAX_TOTAL)
    throw invalidField("table_numbers", "max_total", `a bill asks at most ${MAX_TOTAL}`);
  return totals;
}

/**
 * Shares of `total` in proportion to `weights` (each split's items' subtotal), summing exactly to `total`: each
 * share is rounded down and the minor units left go one each to the largest remainders, ties to the earlier share.
 */
export function proportionalShares(total: number, weights: number[]): number[] {
  const whole = weights.reduce((sum, weight) => sum + weight, 0);
  if (whole === 0) return weights.map((_, i) => (i === 0 ? total : 0));
  const exact = weights.map((weight) => (total * weight) / whole);
  const shares = exact.map(Math.floor);
  let left = total - shares.reduce((sum, share) => sum + share, 0);
  const byRemainder = exact.map((value, i) => ({ i, rest: value - Math.floor(value) })).sort((a, b) => b.rest - a.rest);
  for (const { i } of byRemainder) {
    if (left === 0) break;
    shares[i]! += 1;
    left -= 1;
  }
  return shares;
}
