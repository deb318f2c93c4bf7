import type { ProviderPayment, ProviderPaymentStatus } from "../providers";

/** A QR payment as the gateway's ledger has it: its intent, and what its succeeded refunds came to. */
export interface LedgerPayment {
  payment_intent_id: string;
  merchant_id: number;
  store_id: number;
  provider_transaction_id: string;
  status: string;
  amount: number;
  refunded_amount: number;
}

/** What a difference is about: the payment's status, its amount, its refunds, or a payment one side lacks. */
export const differenceFields = ["status", "amount", "refunded_amount", "payment"] as const;
export type DifferenceField = (typeof differenceFields)[number];

/**
 * One disagreement between the ledger and the provider about one payment, in the card exchange's shape (field,
 * expected: the ledger's value, actual: the provider's), written as text since a status is a word.
 */
export interface ProviderDifference {
  payment_intent_id: string | null;
  provider_transaction_id: string;
  field: DifferenceField;
  expected: string;
  actual: string;
}

/** Whether the gateway's intent took the money (a refund under way too). */
const ledgerTook = (status: string) => status === "succeeded" || status === "cancelling";

/**
 * Whether the provider says it took the money. Taken or not is what a status difference is about: an intent the
 * gateway expired that the provider still shows pending (it expires on its own clock) took nothing on either side.
 */
export const providerTook = (status: ProviderPaymentStatus) => status === "succeeded" || status === "refunded";

/** The differences of one ledger payment from the provider's view of it (absent: the provider does not know it). */
function paymentDifferences(ledger: LedgerPayment, view: ProviderPayment | undefined): ProviderDifference[] {
  const about = {
    payment_intent_id: ledger.payment_intent_id,
    provider_transaction_id: ledger.provider_transaction_id,
  };
  if (!view)
    return ledgerTook(ledger.status) ? [{ ...about, field: "payment", expected: ledger.status, actual: "none" }] : [];
  const differences: ProviderDifference[] = [];
  if (ledgerTook(ledger.status) !== providerTook(view.status))
    differences.push({ ...about, field: "status", expected: ledger.status, actual: view.status });
  if (view.amount !== ledger.amount)
    differences.push({ ...about, field: "amount", expected: String(ledger.amount), actual: String(view.amount) });
  if (view.refunded_amount !== ledger.refunded_amount)
    differences.push({
      ...about,
      field: "refunded_amount",
      expected: String(ledger.refunded_amount),
      actual: String(view.refunded_amount),
    });
  return differences;
}

/**
 * Where a store's day in the ledger and the provider's view of it disagree: per payment whether it was taken, its
 * amount and refunds; a taken payment the provider does not know; and `strangers`, payments the provider took that the
 * gateway never made.
 */
export function differencesOf(
  ledger: readonly LedgerPayment[],
  view: readonly ProviderPayment[],
  strangers: readonly ProviderPayment[],
): ProviderDifference[] {
  const seen = new Map(view.map((payment) => [payment.provider_transaction_id, payment]));
  return [
    ...ledger.flatMap((payment) => paymentDifferences(payment, seen.get(payment.provider_transaction_id))),
    ...strangers.map((payment) => ({
      payment_intent_id: null,
      provider_transaction_id: payment.provider_transaction_id,
      field: "payment" as const,
      expected: "none",
      actual: payment.status,
    })),
  ];
}
