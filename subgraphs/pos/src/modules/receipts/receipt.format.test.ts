import { isPrintableText } from "@pos-cloud/common";
import { describe, expect, it } from "vitest";
import { columns, receiptSms, receiptText, wrap, yen } from "./receipt.format";
import { paymentTaxLines, type ReceiptSources, receiptDocument, registrationNumberOf } from "./receipt.presenter";

const issuer = {
  store_name: "Demo Store Shibuya",
  address: { street: "1-2-3 Jinnan", city: "Shibuya, Tokyo", postal_code: "150-0041", country: "JP" },
  contact_phone: "03-1234-5678",
  contact_email: "ramen@example.com",
  receipt_settings: { footer: "またお越しください" },
  merchant_name: "Demo Merchant",
  legal_name: "Demo Merchant K.K.",
  tax_id: null,
  invoice_config: { registration_number: "T1234567890123" },
};

/** A cash sale of a bill at 10%: 2 x 980 + 480 = 2440, tax 244, total 2684, paid with 3000. */
function sale(overrides: Partial<ReceiptSources["payment"]> = {}): ReceiptSources {
  const bill = {
    id: "b1",
    order_id: "o1",
    bill_number: "B20261124-0003",
    tax_percentage: 10,
    subtotal: 2440,
    discount_amount: 0,
    tax_amount: 244,
    total_amount: 2684,
    is_combined: false,
    splits: [],
  };
  return {
    receipt: { receipt_number: "R20261124-0001", issued_at: new Date("2026-11-24T04:05:00Z") },
    payment: {
      id: "p1",
      merchant_id: 1,
      store_id: 2,
      bill_id: "b1",
      split_id: null,
      amount: 2684,
      tip_amount: 0,
      total_amount: 2684,
      method_type: "CASH",
      provider: null,
      emoney_brand: null,
      status: "completed",
      card_brand: null,
      card_last_4: null,
      approval_code: null,
      cash_received: 3000,
      change_amount: 316,
      refund_amount: 0,
      ...overrides,
    },
    bill,
    combined: [],
    items: [
      { id: "i1", order_id: "o1", item_name: "味噌ラーメン", quantity: 2, unit_price: 980, subtotal: 1960 },
      { id: "i2", order_id: "o1", item_name: "Gyoza", quantity: 1, unit_price: 480, subtotal: 480 },
    ],
    issuer,
  };
}

describe("the printed receipt", () => {
  it("prints fixed-width lines, CJK characters counting two columns, yen with separators", () => {
    for (const width of [32, 42]) {
      const text = receiptText(receiptDocument(sale(), "receipt"), width);
      const lines = text.trimEnd().split("\n");
      for (const line of lines) expect(columns(line)).toBeLessThanOrEqual(width);
      expect(lines).toContain("-".repeat(width));
      // Amounts end exactly at the right edge.
      const total = lines.find((line) => line.startsWith("TOTAL"))!;
      expect(total).toMatch(/ ¥2,684$/);
      expect(columns(total)).toBe(width);
      expect(text).toContain("R20261124-0001");
      expect(text).toContain("2026-11-24 13:05");
      expect(text).toContain("Cash received");
      expect(lines.find((line) => line.startsWith("Change"))).toMatch(/ ¥316$/);
      expect(text).toContain("味噌ラーメン");
      expect(lines).toContain(`  2 x ¥980${" ".repeat(width - 16)}¥1,960`);
    }
    expect(columns("味噌ラーメン")).toBe(12);
    expect(wrap("a very long item name that cannot fit", 10).every((line) => columns(line) <= 10)).toBe(true);
    expect([yen(1234567), yen(-500), yen(0)]).toEqual(["¥1,234,567", "-¥500", "¥0"]);
  });

  it("drops printer commands that rows written before the input rule may hold", () => {
    const sources = sale({ card_brand: "VISA\u001bp" });
    sources.items[0]!.item_name = "Tea\u0007\u001b[2J\u202e";
    sources.issuer = {
      ...sources.issuer,
      store_name: "Shop\u0000\u0019\u2066",
      receipt_settings: { footer: "Bye\u009b" },
    };
    const text = receiptText(receiptDocument(sources, "receipt"), 32);
    expect(text).toContain("Tea[2J");
    expect(text).toContain("Shop");
    expect(isPrintableText(text)).toBe(true);
  });

  it("texts a receipt as one short line: the store, the number and what this payment paid", () => {
    expect(receiptSms(receiptDocument(sale({ amount: 1000, total_amount: 1000 }), "receipt"))).toBe(
      "Demo Store Shibuya: receipt R20261124-0001, ¥1,000 paid on 2026-11-24 13:05. Thank you.",
    );
  });

  it("refuses a width it cannot print", () => {
    expect(() => receiptText(receiptDocument(sale(), "receipt"), 10)).toThrow(
      expect.objectContaining({ code: "invalid_request", details: { field: "width", constraint: "range" } }),
    );
  });

  it("shows a card only masked, and a refund", () => {
    const document = receiptDocument(
      sale({
        method_type: "CREDIT_CARD",
        card_brand: "VISA",
        card_last_4: "4242",
        approval_code: "A123",
        cash_received: null,
        change_amount: null,
        status: "refunded",
        refund_amount: 2684,
      }),
      "receipt",
    );
    expect(document).toMatchObject({ masked_card_number: "**** **** **** 4242", refund_amount: 2684, net_amount: 0 });
    const text = receiptText(document, 32);
    expect(text).toContain("**** **** **** 4242");
    expect(text).toMatch(/REFUNDED +-¥2,684/);
    expect(text).not.toContain("Cash received");
  });

  it("prints an e-money payment's method and brand, with the IC card's number masked", () => {
    const document = receiptDocument(
      sale({
        method_type: "EMONEY",
        emoney_brand: "transport_ic",
        card_last_4: "1234",
        cash_received: null,
        change_amount: null,
      }),
      "receipt",
    );
    expect(document.payment_method).toEqual({ type: "EMONEY", provider: null, brand: "transport_ic" });
    const text = receiptText(document, 32);
    expect(text).toMatch(/^E-MONEY Transport IC +¥2,684$/m);
    expect(text).toContain("**** **** **** 1234");
    expect(receiptText(receiptDocument(sale({ method_type: "EMONEY", emoney_brand: "quicpay" }), "receipt"))).toMatch(
      /^E-MONEY QUICPay +¥2,684$/m,
    );
  });

  it("prints a tax invoice with the registration number and the tax per rate", () => {
    const document = receiptDocument(sale(), "tax_invoice");
    expect(document.issuer.registration_number).toBe("T1234567890123");
    expect(document.tax_lines).toEqual([{ rate: 10, taxable_amount: 2440, tax_amount: 244 }]);
    const text = receiptText(document, 42);
    expect(text).toContain("適格簡易請求書 / TAX INVOICE");
    expect(text).toContain("Registration No. T1234567890123");
    expect(text).toMatch(/10% tax +¥244/);
    expect(text).toContain("Demo Merchant K.K.");
  });

  it("prints a tip outside the tax: the tax lines are the bill's, the charge and the change count the tip", () => {
    const document = receiptDocument(
      sale({ tip_amount: 300, total_amount: 2984, cash_received: 3000, change_amount: 16 }),
      "tax_invoice",
    );
    expect(document).toMatchObject({ amount: 2684, tip_amount: 300, charged_amount: 2984, net_amount: 2984 });
    expect(document.tax_lines).toEqual([{ rate: 10, taxable_amount: 2440, tax_amount: 244 }]);
    const text = receiptText(document, 42);
    expect(text).toMatch(/TOTAL +¥2,684/);
    expect(text).toMatch(/Tip \(not taxed\) +¥300/);
    expect(text).toMatch(/Charged +¥2,984/);
    expect(text).toMatch(/Change +¥16/);
    expect(receiptText(receiptDocument(sale(), "tax_invoice"), 42)).not.toContain("Tip");
  });

  it("refuses a tax invoice without a registration number in the qualified format", () => {
    const sources = sale();
    sources.issuer = { ...issuer, invoice_config: null, tax_id: "1234567890123" };
    expect(() => receiptDocument(sources, "tax_invoice")).toThrow(
      expect.objectContaining({ code: "invalid_state", details: { field: "type", constraint: "registration_number" } }),
    );
    expect(receiptDocument(sources, "receipt").issuer.registration_number).toBeNull();
    expect(registrationNumberOf({ ...issuer, invoice_config: null, tax_id: "t-1234-5678-9012-3" })).toBe(
      "T1234567890123",
    );
  });
});

describe("the tax in a payment", () => {
  const rates = (parts: [number, number][]) =>
    parts.map(([rate, taxable], i) => {
      const tax = Math.floor((taxable * rate) / 100);
      return {
        id: `s${i}`,
        order_id: `o${i}`,
        tax_percentage: rate,
        subtotal: taxable,
        discount_amount: 0,
        tax_amount: tax,
        total_amount: taxable + tax,
      };
    });

  it("is the bill's own tax when the payment pays the whole bill, whatever the rounding", () => {
    for (const taxable of [999, 1001, 2440, 12345]) {
      const [bill] = rates([[10, taxable]]);
      expect(paymentTaxLines(bill!.total_amount, bill!, [])).toEqual([
        { rate: 10, taxable_amount: taxable, tax_amount: bill!.tax_amount },
      ]);
      // The tax included in the total, rounded down, is the same number.
      expect(Math.floor((bill!.total_amount * 10) / 110)).toBe(bill!.tax_amount);
    }
  });

  it("shares a part payment over a combined bill's rates, and the shares add up to it", () => {
    const sources = rates([
      [10, 2000],
      [8, 1500],
    ]);
    const combined = {
      id: "c",
      order_id: null,
      tax_percentage: null,
      subtotal: 3500,
      discount_amount: 0,
      tax_amount: 320,
      total_amount: 3820,
    };
    expect(paymentTaxLines(3820, combined, sources)).toEqual([
      { rate: 10, taxable_amount: 2000, tax_amount: 200 },
      { rate: 8, taxable_amount: 1500, tax_amount: 120 },
    ]);
    const half = paymentTaxLines(1910, combined, sources);
    expect(half.reduce((sum, line) => sum + line.taxable_amount + line.tax_amount, 0)).toBe(1910);
    expect(half).toEqual([
      { rate: 10, taxable_amount: 1000, tax_amount: 100 },
      { rate: 8, taxable_amount: 750, tax_amount: 60 },
    ]);
  });
});
