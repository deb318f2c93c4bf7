import { AppError, type Caller, notFound, readEvent } from "@pos-cloud/common";
import type { MessageOutbox, OutgoingMessage } from "@pos-cloud/common/messages";
import type { BusEvent, MessageBus } from "@pos-cloud/common/messaging";
import type { BillService } from "../bills";
import type { CustomerService } from "../customers";
import type { OrderService } from "../orders";
import type { PaymentService } from "../payments";
import type { ReceiptIssuerRecord, StoreAccess } from "../stores";
import { DEFAULT_WIDTH, receiptSms, receiptText } from "./receipt.format";
import { paymentTaxLines, type ReceiptDocument, type ReceiptType, receiptDocument } from "./receipt.presenter";
import type { ReceiptRepository } from "./receipt.repository";

export type ReceiptService = ReturnType<typeof receiptService>;

/** Payments that have a receipt: completed ones, and those refunded since (the receipt shows the refund). */
const RECEIPTED = ["completed", "refunded"];

/** Whether a bus event tells of a POS payment that completed, its `pos_payment` read through the event catalogue. */
function completedPayment(event: BusEvent) {
  if (event.aggregate_type !== "pos_payment") return false;
  const read = readEvent(event);
  return read !== undefined && "pos_payment" in read.payload && read.payload.pos_payment.status === "completed";
}

/**
 * Receipts and tax invoices of completed POS payments. The number is given in the transaction that completes the
 * payment (`issue`); everything else is read when the receipt is asked for: the payment (refunds included), its
 * bill and items, and the issuer as the portal knows it now.
 */
export function receiptService(deps: {
  receipts: ReceiptRepository;
  payments: Pick<PaymentService, "readable" | "lock" | "row">;
  bills: Pick<BillService, "inStore">;
  orders: Pick<OrderService, "itemsOfBill">;
  access: Pick<StoreAccess, "receiptIssuer">;
  customers: Pick<CustomerService, "receiptContact">;
  messages: Pick<MessageOutbox, "send">;
}) {
  const { receipts, payments, bills, orders, access } = deps;
  type Payment = NonNullable<Awaited<ReturnType<typeof payments.row>>>;

  /** The payment's receipt; one completed before receipts were numbered is numbered now, once, under its row lock. */
  async function receiptOf(paymentId: string) {
    const found = await receipts.find(paymentId);
    if (found) return found;
    const issued = await receipts.transaction(async (tx) => {
      await payments.lock(tx, paymentId);
      return receipts.issue(tx, paymentId);
    });
    if (!issued) throw new AppError("invalid_state", "the payment is not completed: it has no receipt");
    return issued;
  }

  /** The payment's bill and, for a combined bill, the bills it was made of (their rates). */
  async function billOf(payment: Payment) {
    const store = { id: payment.store_id, merchantId: payment.merchant_id };
    const bill = await bills.inStore(store, payment.bill_id);
    return { bill, combined: await Promise.all(bill.combined_bill_ids.map((id) => bills.inStore(store, id))) };
  }

  async function documentOf(
    payment: Payment,
    type: ReceiptType,
    issuerOf: Promise<ReceiptIssuerRecord> = access.receiptIssuer(payment.store_id),
  ) {
    const receipt = await receiptOf(payment.id);
    const { bill, combined } = await billOf(payment);
    const [items, issuer] = await Promise.all([
      receipts.transaction((tx) => orders.itemsOfBill(tx, bill.id)),
      issuerOf,
    ]);
    return receiptDocument({ receipt, payment, bill, combined, items, issuer }, type);
  }

  /**
   * Sends a completed payment's receipt to its bill's customer as the customer chose: the printed text by e-mail, a
   * short line by SMS; once per payment, however often its completion is heard.
   */
  async function sendReceipt(paymentId: string) {
    const payment = await payments.row(paymentId);
    if (payment?.status !== "completed") return;
    const bill = await bills.inStore({ id: payment.store_id, merchantId: payment.merchant_id }, payment.bill_id);
    const contact = bill.customer_id ? await deps.customers.receiptContact(bill.customer_id) : null;
    if (!contact) return;
    const issuer = await access.receiptIssuer(payment.store_id);
    const receipt = await documentOf(payment, "receipt", Promise.resolve(issuer));
    const message: OutgoingMessage =
      contact.channel === "email"
        ? {
            ...contact,
            subject: `Your receipt ${receipt.receipt_number} from ${issuer.store_name}`,
            text: receiptText(receipt, DEFAULT_WIDTH),
            replyTo: issuer.contact_email ?? undefined,
          }
        : { ...contact, subject: "", text: receiptSms(receipt) };
    await deps.messages.send(message, { kind: "receipt", dedupeKey: `receipt:${payment.id}` });
  }

  return {
    /**
     * Follows completed payments on the bus (the POS outbox's `pos_payment` events, group `pos-receipt-mail`) and
     * sends their receipts; an event whose receipt could not be queued (the portal away) is heard again.
     */
    consume: (bus: MessageBus) =>
      bus.consume("events.internal", "pos-receipt-mail", async (event: BusEvent) => {
        if (completedPayment(event)) await sendReceipt(event.aggregate_id);
      }),

    /** For POS payments, in the transaction that completes one: its receipt number, on the day it completed. */
    issue: receipts.issue,

    /**
     * The receipt (or tax invoice) of a payment the caller reaches (another store's is not found); a payment that is
     * not completed (pending, failed) has none: 409 `invalid_state`.
     */
    async get(caller: Caller, paymentId: string, type: ReceiptType = "receipt"): Promise<ReceiptDocument> {
      const payment = await payments.readable(caller, paymentId);
      if (!RECEIPTED.includes(payment.status))
        throw new AppError("invalid_state", `a ${payment.status} payment has no receipt`, { status: payment.status });
      return documentOf(payment, type);
    },

    /**
     * For the accounting export, as the system: a completed payment's receipt number, amount and the tax in what it
     * paid (the sum of its receipt's tax lines).
     */
    async taxOfPayment(paymentId: string) {
      const payment = await payments.row(paymentId);
      if (!payment) throw notFound("payment");
      const { bill, combined } = await billOf(payment);
      const lines = paymentTaxLines(payment.amount, bill, combined);
      const tax_amount = lines.reduce((total, line) => total + line.tax_amount, 0);
      return { receipt_number: (await receiptOf(payment.id)).receipt_number, amount: payment.amount, tax_amount };
    },

    /** The receipt as printed: fixed-width lines (24 to 64 columns, 42 by default). */
    text: (receipt: ReceiptDocument, width?: number | null) => receiptText(receipt, width ?? DEFAULT_WIDTH),
  };
}
