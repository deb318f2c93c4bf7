import { invalidField, stripUnprintable } from "@pos-cloud/common";
import type { ReceiptDocument } from "./receipt.presenter";

/*
 * The printable receipt: fixed-width lines for a terminal's receipt printer (32 columns on 58 mm paper, 42 or 48 on
 * 80 mm). Widths are counted in printer columns: a CJK or full-width character takes two, so Japanese item names
 * line up too.
 */

export const MIN_WIDTH = 24;
export const MAX_WIDTH = 64;
export const DEFAULT_WIDTH = 42;

/** Whether a code point prints two columns wide (CJK, kana, Hangul, full-width forms). */
const isWide = (code: number) =>
  (code >= 0x1100 && code <= 0x115f) ||
  (code >= 0x2e80 && code <= 0xa4cf) ||
  (code >= 0xac00 && code <= 0xd7a3) ||
  (code >= 0xf900 && code <= 0xfaff) ||
  (code >= 0xfe30 && code <= 0xfe4f) ||
  (code >= 0xff00 && code <= 0xff60) ||
  (code >= 0xffe0 && code <= 0xffe6) ||
  (code >= 0x20000 && code <= 0x3fffd);

export function columns(value: string): number {
  let width = 0;
  for (const char of value) width += isWide(char.codePointAt(0)!) ? 2 : 1;
  return width;
}

/**
 * Lines of at most `width` columns, broken at spaces where possible, else inside a word. What a printer would take
 * as a command is dropped: input refuses it, but rows written before that rule may hold it.
 */
export function wrap(value: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of stripUnprintable(value.replace(/[\r\n\t]+/g, " ")).split(" ")) {
    const candidate = line === "" ? word : `${line} ${word}`;
    if (columns(candidate) <= width) {
      line = candidate;
      continue;
    }
    if (line !== "") lines.push(line);
    line = "";
    for (const char of word) {
      if (columns(line + char) > width) {
        lines.push(line);
        line = "";
      }
      line += char;
    }
  }
  if (line !== "" || lines.length === 0) lines.push(line);
  return lines;
}

/** Yen as receipts print it: ¥1,234, -¥500. */
export const yen = (amount: number) => `${amount < 0 ? "-" : ""}¥${Math.abs(amount).toLocaleString("en-US")}`;

/** The moment in Asia/Tokyo, as the store's customers read it: 2026-11-24 13:05. */
const tokyoTime = (at: Date | string) =>
  new Intl.DateTimeFormat("sv-SE", {
    timeZone: "Asia/Tokyo",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
  }).format(new Date(at));

const methodNames: Record<string, string> = { CASH: "CASH", CREDIT_CARD: "CARD", EMONEY: "E-MONEY", QR: "QR" };
/** E-money brands as their own marks spell them. */
const brandNames: Record<string, string> = {
  transport_ic: "Transport IC",
  id: "iD",
  quicpay: "QUICPay",
  waon: "WAON",
  nanaco: "nanaco",
  rakuten_edy: "Rakuten Edy",
};

export function receiptText(receipt: ReceiptDocument, width: number = DEFAULT_WIDTH): string {
  if (!Number.isInteger(width) || width < MIN_WIDTH || width > MAX_WIDTH)
    throw invalidField("width", "range", `width must be ${MIN_WIDTH} to ${MAX_WIDTH} columns`);
  const lines: string[] = [];
  const rule = "-".repeat(width);
  const center = (value: string) => {
    for (const line of wrap(value, width))
      lines.push(`${" ".repeat(Math.floor((width - columns(line)) / 2))}${line}`.trimEnd());
  };
  const left = (value: string) => lines.push(...wrap(value, width));
  /** A label on the left and an amount on the right; the label wraps above when both do not fit. */
  const pair = (label: string, text: string) => {
    const value = stripUnprintable(text);
    const room = width - columns(value) - 1;
    const indent = /^ */.exec(label)![0];
    const wrapped = wrap(label.slice(indent.length), Math.max(1, room - indent.length)).map((line) => indent + line);
    lines.push(...wrapped.slice(0, -1));
    const last = wrapped.at(-1)!;
    lines.push(`${last}${" ".repeat(Math.max(1, width - columns(last) - columns(value)))}${value}`);
  };

  const { issuer } = receipt;
  center(issuer.store_name);
  if (issuer.name !== issuer.store_name) center(issuer.name);
  if (issuer.address) center(issuer.address);
  if (issuer.phone) center(`TEL ${issuer.phone}`);
  if (issuer.header) center(issuer.header);
  lines.push(rule);
  center(receipt.type === "tax_invoice" ? "適格簡易請求書 / TAX INVOICE" : "領収書 / RECEIPT");
  if (receipt.type === "tax_invoice") left(`Registration No. ${issuer.registration_number}`);
  pair("No.", receipt.receipt_number);
  pair("Date", tokyoTime(receipt.issued_at));
  pair("Bill", receipt.bill_number);
  if (receipt.split) pair("Split", `${receipt.split.sequence} of ${receipt.split.count}`);
  lines.push(rule);

  const rates = new Set(receipt.items.map((item) => item.tax_rate));
  const reduced = rates.size > 1 ? Math.min(...rates) : undefined;
  for (const item of receipt.items) {
    const name = `${item.item_name}${item.tax_rate === reduced ? " *" : ""}`;
    if (item.quantity === 1) pair(name, yen(item.subtotal));
    else {
      left(name);
      pair(`  ${item.quantity} x ${yen(item.unit_price)}`, yen(item.subtotal));
    }
  }
  if (reduced !== undefined) left(`* ${reduced}% items`);
  lines.push(rule);

  pair("Subtotal", yen(receipt.subtotal));
  if (receipt.discount_amount > 0) pair("Discount", yen(-receipt.discount_amount));
  pair("Tax", yen(receipt.tax_amount));
  pair("TOTAL", yen(receipt.total_amount));
  if (receipt.amount !== receipt.total_amount) pair("This payment", yen(receipt.amount));
  for (const line of receipt.tax_lines) {
    pair(`  ${line.rate}% taxable`, yen(line.taxable_amount));
    pair(`  ${line.rate}% tax`, yen(line.tax_amount));
  }
  if (receipt.tip_amount > 0) {
    pair("Tip (not taxed)", yen(receipt.tip_amount));
    pair("Charged", yen(receipt.charged_amount));
  }
  lines.push(rule);

  const { type, provider, brand } = receipt.payment_method;
  const named = [methodNames[type] ?? type, provider, brand && (brandNames[brand] ?? brand), receipt.card_brand];
  pair(named.filter(Boolean).join(" "), yen(receipt.charged_amount));
  if (receipt.masked_card_number) left(receipt.masked_card_number);
  if (receipt.approval_code) pair("Approval", receipt.approval_code);
  if (receipt.cash_received !== null) pair("Cash received", yen(receipt.cash_received));
  if (receipt.change_amount !== null) pair("Change", yen(receipt.change_amount));
  if (receipt.refund_amount > 0) {
    pair(receipt.status === "refunded" ? "REFUNDED" : "Refunded", yen(-receipt.refund_amount));
    pair("Net", yen(receipt.net_amount));
  }
  lines.push(rule);
  if (issuer.footer) center(issuer.footer);
  center("Thank you");
  return `${lines.join("\n")}\n`;
}

/**
 * The receipt as a customer who chose SMS receipts gets it: one short line with the store, the receipt number (which
 * the store finds the receipt by) and what this payment paid.
 */
export const receiptSms = (receipt: ReceiptDocument) =>
  `${receipt.issuer.store_name}: receipt ${receipt.receipt_number}, ${yen(receipt.charged_amount)} paid on ${tokyoTime(receipt.issued_at)}. Thank you.`;
