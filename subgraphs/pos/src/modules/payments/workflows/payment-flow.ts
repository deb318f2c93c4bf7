import { type Caller, invalidField } from "@pos-cloud/common";
import type { SaleTime, SaleTimes } from "../../../sale-time";
import type { BillService, PaymentToApply } from "../../bills";
import type { CustomerService } from "../../customers";
import type { GatewayClient } from "../gateway.client";
import type { PaymentCreate } from "../payment.inputs";
import type { PaymentRepository, PaymentRow, Tx } from "../payment.repository";

/** What the payment workflows work with: POS's payment rows, the bills they pay, the gateway, receipts. */
export interface PaymentDeps {
  payments: PaymentRepository;
  bills: BillService;
  gateway: GatewayClient;
  clock: () => Date;
  /** When a payment happened: `occurred_at` for cash recorded offline, within its bounds. */
  saleTime: SaleTimes;
  customers: Pick<CustomerService, "recordPayment" | "recordRefund">;
  /** Numbers the receipt of a payment, in the transaction that completes it (the receipts module). */
  receipts: { issue(tx: Tx, paymentId: string): Promise<unknown> };
}

export type Bill = Awaited<ReturnType<BillService["get"]>>;

/** A payment about to be taken: its row as first written, from the request and the bill it pays. */
export type PaymentDraft = ReturnType<typeof paymentDraft>;

export const paymentDraft = (
  id: string,
  caller: Caller,
  bill: Bill,
  data: PaymentCreate,
  now: Date,
  happened: SaleTime,
) => ({
  id,
  merchant_id: bill.merchant_id,
  store_id: bill.store_id,
  bill_id: data.bill_id,
  split_id: data.split_id,
  device_id: caller.type === "device" ? caller.id : null,
  amount: data.amount,
  tip_amount: data.tip_amount,
  total_amount: data.amount + data.tip_amount,
  method_type: data.payment_method.type,
  provider: data.payment_method.provider,
  emoney_brand: data.payment_method.brand ?? null,
  payment_provider_method_id: data.payment_provider_method_id,
  ...happened,
  created_at: now,
});

/**
 * How the gateway records each POS method (the spec's method table): e-money, like card, is taken by the terminal
 * and only recorded by the gateway (docs/decisions/pos.md, "E-money pays").
 */
const gatewayMethod = {
  CASH: { payment_method_types: ["cash"], processing_mode: "manual" },
  CREDIT_CARD: { payment_method_types: ["credit_card"], processing_mode: "external" },
  EMONEY: { payment_method_types: ["emoney"], processing_mode: "external" },
  QR: { payment_method_types: ["qr_mpm"], processing_mode: "pgw_processed" },
} as const;

/**
 * The gateway intent of a payment, from its row alone: a recovery sends the very body the payment first sent. It
 * charges what the customer pays, the amount and its tip (docs/decisions/pos.md, "Tips ride on top of the bill"); an
 * e-money intent carries its brand in its metadata, for the partner and the ledger.
 */
export const intentBody = (
  payment: Pick<PaymentRow, "id" | "bill_id" | "store_id" | "total_amount" | "method_type" | "emoney_brand">,
) => ({
  amount: payment.total_amount,
  currency: "JPY",
  ...gatewayMethod[payment.method_type as keyof typeof gatewayMethod],
  merchant_ref_id: `pos-${payment.id}`,
  merchant_store_id: String(payment.store_id),
  order_id: payment.bill_id,
  description: `POS payment ${payment.id}`,
  ...(payment.emoney_brand && { metadata: { emoney_brand: payment.emoney_brand } }),
});

/** The gateway's Idempotency-Key of a payment's intent: a retry or a recovery finds the same intent. */
export const intentKey = (paymentId: string) => `pos-payment-${paymentId}`;

/**
 * Takes the bill's payment lock and refuses an amount above what remains once the payments in flight (card and QR
 * not yet completed) are counted, so two payments cannot both be promised the same money.
 */
export async function holdBill(deps: PaymentDeps, tx: Tx, payment: PaymentDraft) {
  await deps.payments.lockBillPayments(tx, payment.bill_id);
  const bill = await deps.bills.payable(tx, payment.bill_id);
  const split = payment.split_id ? bill.splits.find((part) => part.id === payment.split_id) : undefined;
  if (payment.split_id && !split) throw invalidField("split_id", "split_of_bill", "not a split of this bill");
  const remaining = split ? split.remaining_amount : bill.remaining_amount;
  const available = remaining - (await deps.payments.reserved(tx, bill.id, payment.split_id ?? null));
  if (payment.amount > available)
    throw invalidField("amount", "remaining_amount", `at most ${Math.max(0, available)} remains to pay`);
}

/** Money applied to its bill in the payment's transaction, and to the totals of the bill's customer. */
export async function applyToBill(deps: PaymentDeps, tx: Tx, payment: PaymentToApply) {
  const bill = await deps.bills.applyPayment(tx, payment);
  await deps.customers.recordPayment(tx, bill, payment.amount);
}
