import { AppError } from "@pos-cloud/common";
import { proportionalShares } from "../../money";
import type { ReceiptIssuerRecord } from "../stores";

/*
 * A receipt as data: what a completed payment paid for, by whom it was issued, and the tax in it per rate. Pure, so
 * the JSON answer and the printed text are made from one value.
 */

export type ReceiptType = "receipt" | "tax_invoice";

/** The parts of a bill a receipt shows, and the bills a combined one was made of (their rates). */
export interface BillPart {
  id: string;
  order_id: string | null;
  tax_percentage: number | null;
  subtotal: number;
  discount_amount: number;
  tax_amount: number;
  total_amount: number;
}

export interface ReceiptSources {
  receipt: { receipt_number: string; issued_at: Date };
  payment: {
    id: string;
    merchant_id: number;
    store_id: number;
    bill_id: string;
    split_id: string | null;
    amount: number;
    tip_amount: number;
    total_amount: number;
    method_type: string;
    provider: string | null;
    emoney_brand: string | null;
    status: string;
    card_brand: string | null;
    card_last_4: string | null;
    approval_code: string | null;
    cash_received: number | null;
    change_amount: number | null;
    refund_amount: number;
  };
  bill: BillPart & {
    bill_number: string;
    is_combined: boolean;
    splits: { id: string; sequence: number; item_ids: string[] }[];
  };
  /** The source bills of a combined bill (with their rates); empty otherwise. */
  combined: BillPart[];
  items: { id: string; order_id: string; item_name: string; quantity: number; unit_price: number; subtotal: number }[];
  issuer: ReceiptIssuerRecord;
}

/** Japan's qualified invoice issuer registration number: T and 13 digits. */
const REGISTRATION_NUMBER = /^T\d{13}$/;

const field = (value: unknown, key: string): unknown =>
  value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;

const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : null);

/**
 * The issuer's registration number, from the first place the portal holds one in the qualified format: the store's
 * receipt settings (`registration_number`), the merchant's invoice settings (`registration_number`), the merchant's
 * tax id. Spaces and hyphens are ignored (`T-1234-5678-9012-3` is written several ways).
 */
export function registrationNumberOf(issuer: ReceiptIssuerRecord): string | null {
  const candidates = [
    field(issuer.receipt_settings, "registration_number"),
    field(issuer.invoice_config, "registration_number"),
    issuer.tax_id,
  ];
  for (const candidate of candidates) {
    const normal = typeof candidate === "string" ? candidate.replace(/[\s-]/g, "").toUpperCase() : "";
    if (REGISTRATION_NUMBER.test(normal)) return normal;
  }
  return null;
}

/** A postal address object as one line: street, city, postal code (the country is left out at home). */
export function addressLine(address: unknown): string | null {
  const parts = ["street", "city", "postal_code"].map((key) => text(field(address, key))).filter(Boolean);
  const country = text(field(address, "country"));
  if (country && !["JP", "JPN", "JAPAN"].includes(country.toUpperCase())) parts.push(country);
  return parts.length > 0 ? parts.join(", ") : null;
}

interface RateLine {
  rate: number;
  taxable_amount: number;
  tax_amount: number;
}

/** The bill's own tax per rate: its rate, or for a combined bill each rate of the bills it was made of. */
function billRates(bill: BillPart, combined: BillPart[]): (RateLine & { total: number })[] {
  const parts = combined.length > 0 ? combined : [bill];
  const byRate = new Map<number, RateLine & { total: number }>();
  for (const part of parts) {
    const rate = part.tax_percentage ?? 0;
    const line = byRate.get(rate) ?? { rate, taxable_amount: 0, tax_amount: 0, total: 0 };
    line.taxable_amount += part.subtotal - part.discount_amount;
    line.tax_amount += part.tax_amount;
    line.total += part.total_amount;
    byRate.set(rate, line);
  }
  return [...byRate.values()].sort((a, b) => b.rate - a.rate);
}

/**
 * The tax in what this payment paid, per rate. A payment of the whole bill carries the bill's own tax lines; a part
 * payment (a split, or one of several payments) carries its amount shared out over the rates like the bill's total,
 * and the tax included in each share, rounded down: `share * rate / (100 + rate)`. For a whole bill that formula
 * gives exactly the bill's tax, which was rounded down on the amount before tax.
 */
export function paymentTaxLines(amount: number, bill: BillPart, combined: BillPart[]): RateLine[] {
  const rates = billRates(bill, combined);
  if (amount === bill.total_amount) return rates.map(({ total: _, ...line }) => line);
  const shares = proportionalShares(
    amount,
    rates.map((line) => line.total),
  );
  return rates.map((line, i) => {
    const share = shares[i]!;
    const tax_amount = Math.floor((share * line.rate) / (100 + line.rate));
    return { rate: line.rate, taxable_amount: share - tax_amount, tax_amount };
  });
}

/** The receipt (or tax invoice) of a completed payment. A tax invoice needs the issuer's registration number. */
export function receiptDocument(sources: ReceiptSources, type: ReceiptType) {
  const { receipt, payment, bill, combined, items, issuer } = sources;
  const registration_number = registrationNumberOf(issuer);
  if (type === "tax_invoice" && !registration_number)
    throw new AppError(
      "invalid_state",
      "this store's merchant has no qualified invoice registration number (T and 13 digits) in the portal; print a receipt",
      { field: "type", constraint: "registration_number" },
    );
  const rateOfOrder = new Map(combined.map((part) => [part.order_id, part.tax_percentage]));
  const split = payment.split_id ? bill.splits.find((part) => part.id === payment.split_id) : undefined;
  // A split by items pays for its own items; any other payment is of the whole bill's.
  const paidItems =
    split && split.item_ids.length > 0 ? items.filter((item) => split.item_ids.includes(item.id)) : items;
  return {
    receipt_number: receipt.receipt_number,
    type,
    payment_id: payment.id,
    merchant_id: payment.merchant_id,
    store_id: payment.store_id,
    bill_id: bill.id,
    bill_number: bill.bill_number,
    issued_at: receipt.issued_at,
    issuer: {
      store_name: issuer.store_name,
      name: text(issuer.legal_name) ?? issuer.merchant_name,
      address: addressLine(issuer.address),
      phone: text(issuer.contact_phone),
      registration_number,
      header: text(field(issuer.receipt_settings, "header")),
      footer: text(field(issuer.receipt_settings, "footer")),
    },
    currency: "JPY",
    items: paidItems.map((item) => ({
      item_name: item.item_name,
      quantity: item.quantity,
      unit_price: item.unit_price,
      subtotal: item.subtotal,
      tax_rate: (bill.is_combined ? rateOfOrder.get(item.order_id) : bill.tax_percentage) ?? 0,
    })),
    split: split ? { sequence: split.sequence, count: bill.splits.length } : null,
    subtotal: bill.subtotal,
    discount_amount: bill.discount_amount,
    tax_amount: bill.tax_amount,
    total_amount: bill.total_amount,
    amount: payment.amount,
    // A tip is no consideration for the bill's goods: it is outside the tax lines (docs/decisions/pos.md, "Tips ride
    // on top of the bill").
    tip_amount: payment.tip_amount,
    charged_amount: payment.total_amount,
    tax_lines: paymentTaxLines(payment.amount, bill, combined),
    payment_method: { type: payment.method_type, provider: payment.provider, brand: payment.emoney_brand },
    card_brand: payment.card_brand,
    masked_card_number: payment.card_last_4 ? `**** **** **** ${payment.card_last_4}` : null,
    approval_code: payment.approval_code,
    cash_received: payment.cash_received,
    change_amount: payment.change_amount,
    status: payment.status,
    refund_amount: payment.refund_amount,
    net_amount: payment.total_amount - payment.refund_amount,
  };
}

export type ReceiptDocument = ReturnType<typeof receiptDocument>;
