import type { TerminalClient } from "@pos-cloud/terminal-sdk";
import { unwrap } from "../src/errors";

/** How often a QR payment is read while the platform settles it. */
const QR_READ_INTERVAL_MS = 100;

export type Method = "cash" | "qr" | "card";

/** What the terminal takes a sale's payment with, as the platform names the method in its totals. */
export const platformMethod = { cash: "CASH", qr: "QR", card: "CREDIT_CARD" } as const;

export interface SaleContext {
  terminal: TerminalClient;
  /** A staff code of the store (demo.json's STAFF user's login id). */
  staffCode: string;
  /** The QR provider's code, and where its sandbox takes the customer's payment. */
  provider: string;
  /** How long a QR payment may take to complete before the sale counts as failed. */
  qrTimeoutMs: number;
}

/** The card app's answer, as a reader reports an approved card. */
function cardResult(sequence: number) {
  return {
    approval_code: `A${String(sequence % 1_000_000).padStart(6, "0")}`,
    card_document_number: `SLIP-${sequence}`,
    card_last_4: "4242",
    card_brand: "VISA",
  };
}

/** The customer pays the QR at the sandbox provider: its QR content is the customer's page, `/pay/<id>`. */
async function payAtSandbox(qrContent: string) {
  const paid = await fetch(`${qrContent.replace("/pay/", "/sandbox/transactions/")}/pay`, { method: "POST" });
  if (paid.status !== 200) throw new Error(`the sandbox's pay answered ${paid.status}`);
}

/**
 * A QR payment confirmed, paid by the sandbox's customer, and followed until the platform settles the POS payment
 * from the gateway's event. Followed by reading the payment: the SDK's feeds read the current state before they
 * subscribe, and a change in between would wait for the next event (see docs/decisions/edge.md, the simulator).
 */
async function payByQr(context: SaleContext, billId: string, amount: number) {
  const { terminal } = context;
  const payment = await terminal.startQrPayment(billId, amount);
  const { qr_content } = await terminal.paymentView(payment).confirm(context.provider);
  if (!qr_content) throw new Error("the confirm answered no QR content");
  await payAtSandbox(qr_content);
  const gives = Date.now() + context.qrTimeoutMs;
  for (;;) {
    const now = await terminal.payments.get(payment.id);
    if (now.status !== "pending" || Date.now() > gives) return now;
    await new Promise((resolve) => setTimeout(resolve, QR_READ_INTERVAL_MS));
  }
}

/** One whole sale: an order of one item, its bill, and its payment by `method`, until the payment is completed. */
export async function sell(context: SaleContext, method: Method, sequence: number) {
  const { terminal } = context;
  const unitPrice = 100 + (sequence % 50) * 10;
  const order = await terminal.orders.create({
    order_type: "takeaway",
    items: [{ sequence: 1, item_name: "Simulated item", quantity: 1, unit_price: unitPrice }],
  });
  const bill = await terminal.bills.create({ order_id: order.id, staff_code: context.staffCode, tax_percentage: 10 });
  const amount = bill.total_amount;
  let payment: { id: string; status: string };
  if (method === "qr") payment = await payByQr(context, bill.id, amount);
  else if (method === "cash")
    payment = await terminal.payments.create({
      bill_id: bill.id,
      amount,
      payment_method: { type: "CASH" },
      cash_received: amount,
    });
  else {
    const started = await terminal.payments.create({
      bill_id: bill.id,
      amount,
      payment_method: { type: "CREDIT_CARD" },
    });
    payment = unwrap(
      await terminal.api.PATCH("/api/v1/payments/{id}", {
        params: { path: { id: started.id } },
        body: cardResult(sequence),
      }),
    );
  }
  if (payment.status !== "completed") throw new Error(`the ${method} payment ended ${payment.status}`);
  return amount;
}
