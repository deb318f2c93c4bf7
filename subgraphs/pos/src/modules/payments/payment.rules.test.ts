import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cardResult, emoneyResult, paymentCreate } from "./payment.inputs";
import { inFlight, paymentMachine } from "./payment.machine";

const sale = (fields: Record<string, unknown>) => ({ bill_id: randomUUID(), amount: 1200, ...fields });
const issuesOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.error?.issues.map((issue) => issue.path.join(".")) ?? [];

// The rules of POS payments that need no storage: what a payment request may carry, what a card result must
// carry, and how money already taken may move.
describe("the rules of POS payments", () => {
  it("takes cash_received with cash only, and a provider with QR only", () => {
    expect(paymentCreate.safeParse(sale({ payment_method: { type: "CASH" }, cash_received: 2000 })).success).toBe(true);
    expect(issuesOf(paymentCreate.safeParse(sale({ payment_method: { type: "QR" }, cash_received: 2000 })))).toEqual([
      "cash_received",
    ]);
    expect(paymentCreate.safeParse(sale({ payment_method: { type: "QR", provider: "sandbox" } })).success).toBe(true);
    expect(issuesOf(paymentCreate.safeParse(sale({ payment_method: { type: "CREDIT_CARD", provider: "x" } })))).toEqual(
      ["payment_method.provider"],
    );
  });

  it("takes e-money with its brand only, and a brand with e-money only", () => {
    const method = (payment_method: Record<string, unknown>) =>
      issuesOf(paymentCreate.safeParse(sale({ payment_method })));
    expect(method({ type: "EMONEY", brand: "transport_ic" })).toEqual([]);
    expect(method({ type: "EMONEY" })).toEqual(["payment_method.brand"]);
    expect(method({ type: "EMONEY", brand: "octopus" })).toEqual(["payment_method.brand"]);
    expect(method({ type: "QR", brand: "id" })).toEqual(["payment_method.brand"]);
  });

  it("takes occurred_at (a sale recorded offline) with cash only: card and QR need the network as they happen", () => {
    const occurred_at = new Date("2031-03-10T10:00:00+09:00");
    expect(
      paymentCreate.safeParse(sale({ payment_method: { type: "CASH" }, cash_received: 2000, occurred_at })).success,
    ).toBe(true);
    for (const payment_method of [{ type: "CREDIT_CARD" }, { type: "EMONEY", brand: "waon" }, { type: "QR" }])
      expect(issuesOf(paymentCreate.safeParse(sale({ payment_method, occurred_at })))).toEqual(["occurred_at"]);
  });

  it("refuses a card number or any field it does not know, and amounts that are not positive whole yen", () => {
    const card = { type: "CREDIT_CARD" };
    expect(paymentCreate.safeParse(sale({ payment_method: card, card_number: "4111111111111111" })).success).toBe(
      false,
    );
    expect(paymentCreate.safeParse(sale({ payment_method: card, amount: 0 })).success).toBe(false);
    expect(paymentCreate.safeParse(sale({ payment_method: card, amount: 12.5 })).success).toBe(false);
    expect(paymentCreate.safeParse(sale({ payment_method: card, amount: 100_000_001 })).success).toBe(false);
  });

  it("needs the approval code and the slip number of an approved card, nothing of a declined one", () => {
    expect(issuesOf(cardResult.safeParse({ card_last_4: "4242" })).sort()).toEqual([
      "approval_code",
      "card_document_number",
    ]);
    expect(cardResult.safeParse({ approval_code: "A1", card_document_number: "D-1" }).data?.status).toBe("success");
    expect(cardResult.safeParse({ status: "declined" }).success).toBe(true);
    expect(cardResult.safeParse({ status: "declined", card_last_4: "42424" }).success).toBe(false);
  });

  it("needs the slip number of approved e-money, its approval code only where the brand gives one, no card brand", () => {
    expect(issuesOf(emoneyResult.safeParse({ card_last_4: "1234" }))).toEqual(["card_document_number"]);
    expect(emoneyResult.safeParse({ card_document_number: "00042" }).data?.status).toBe("success");
    expect(emoneyResult.safeParse({ approval_code: "A1", card_document_number: "00042" }).success).toBe(true);
    expect(emoneyResult.safeParse({ card_document_number: "00042", card_brand: "VISA" }).success).toBe(false);
    expect(emoneyResult.safeParse({ status: "declined", amount: 0 }).success).toBe(false);
  });

  it("decides a payment only while it is in flight, and gives money back only from a completed one", () => {
    for (const from of inFlight) {
      expect(paymentMachine.transition(from, "complete")).toBe("completed");
      expect(paymentMachine.transition(from, "fail")).toBe("failed");
      expect(() => paymentMachine.transition(from, "refund_in_full")).toThrow(
        expect.objectContaining({ code: "invalid_state" }),
      );
    }
    expect(paymentMachine.transition("completed", "refund_in_part")).toBe("completed");
    expect(paymentMachine.transition("completed", "refund_in_full")).toBe("refunded");
    expect(() => paymentMachine.transition("refunded", "refund_in_part")).toThrow(
      expect.objectContaining({ code: "invalid_state" }),
    );
  });
});
