import { describe, expect, it } from "vitest";
import type { ProviderPayment } from "../providers";
import { differencesOf, type LedgerPayment } from "./provider-differences.rules";

const ledger = (id: string, patch: Partial<LedgerPayment> = {}): LedgerPayment => ({
  payment_intent_id: `pi_${id}`,
  merchant_id: 1,
  store_id: 2,
  provider_transaction_id: `txn_${id}`,
  status: "succeeded",
  amount: 1000,
  refunded_amount: 0,
  ...patch,
});
const provider = (id: string, patch: Partial<ProviderPayment> = {}): ProviderPayment => ({
  provider_transaction_id: `txn_${id}`,
  status: "succeeded",
  amount: 1000,
  currency: "JPY",
  refunded_amount: 0,
  expires_at: null,
  failure_code: null,
  failure_message: null,
  ...patch,
});

describe("differences between the ledger and a provider's view", () => {
  it("finds none where both agree, whatever words they use for money not taken", () => {
    const book = [ledger("a"), ledger("b", { status: "cancelled" }), ledger("c", { status: "failed" })];
    const view = [provider("a"), provider("b", { status: "pending" }), provider("c", { status: "cancelled" })];
    expect(differencesOf(book, view, [])).toEqual([]);
    // Refunded in full at the provider, with the ledger's refunds to match: still taken, and refunded alike.
    expect(
      differencesOf(
        [ledger("d", { refunded_amount: 1000 })],
        [provider("d", { status: "refunded", refunded_amount: 1000 })],
        [],
      ),
    ).toEqual([]);
  });

  it("names whether taken, the amount, the refunds, and a payment one side lacks, with both values", () => {
    const book = [
      ledger("taken", { status: "requires_action" }),
      ledger("untaken"),
      ledger("amount", { amount: 1200 }),
      ledger("refund", { refunded_amount: 300 }),
      ledger("lost"),
      ledger("open-lost", { status: "requires_action" }),
    ];
    const view = [
      provider("taken"),
      provider("untaken", { status: "failed" }),
      provider("amount"),
      provider("refund", { refunded_amount: 500 }),
    ];
    const about = (id: string | null, field: string, expected: string, actual: string) => ({
      payment_intent_id: id && `pi_${id}`,
      provider_transaction_id: `txn_${id ?? "stranger"}`,
      field,
      expected,
      actual,
    });
    expect(differencesOf(book, view, [provider("stranger")])).toEqual([
      about("taken", "status", "requires_action", "succeeded"),
      about("untaken", "status", "succeeded", "failed"),
      about("amount", "amount", "1200", "1000"),
      about("refund", "refunded_amount", "300", "500"),
      about("lost", "payment", "succeeded", "none"),
      about(null, "payment", "none", "succeeded"),
    ]);
  });
});
