import {
  type Caller,
  dayWindow,
  invalidField,
  isUuid,
  logger,
  mapPage,
  parseInput,
  type ReachableStore,
} from "@pos-cloud/common";
import { type ListArguments, parseListArguments } from "../list-arguments";
import { findInStore, findReachable, type StoreAccess } from "../stores";
import { customerSpendQuery, paymentFilter } from "./payment.inputs";
import { presentPayment } from "./payment.presenter";
import type { PaymentRow } from "./payment.repository";
import type { PaymentDeps } from "./workflows/payment-flow";
import { settleQrPayment } from "./workflows/settle-qr-payment";

/** Reading POS payments: one, a page of them, one of a store, one as stored. */
export function paymentReads(deps: PaymentDeps & { access: StoreAccess }) {
  const { payments, access, gateway } = deps;
  const settle = settleQrPayment(deps);

  /** A payment of a store the caller reaches; any other id is not found. */
  async function readable(caller: Caller, id: string): Promise<PaymentRow> {
    return findReachable(access, caller, "payment", id, (id) => payments.find(id));
  }

  return {
    /** One payment; a QR payment still in flight asks the gateway first, should its event be late. */
    async get(caller: Caller, id: string) {
      const payment = await readable(caller, id);
      const { payment_intent_id, payment_token } = payment;
      if (payment.method_type === "QR" && payment.status === "pending" && payment_intent_id && payment_token) {
        try {
          await settle({ intent: await gateway.retrieve(payment_intent_id, payment_token) });
          return presentPayment(await readable(caller, id));
        } catch (error) {
          logger.warn("following a QR payment's intent failed", { payment_id: id, error: String(error) });
        }
      }
      return presentPayment(payment);
    },

    async list(caller: Caller, args: ListArguments) {
      const { filter, page, scope } = await parseListArguments(access, caller, paymentFilter, args);
      return mapPage(await payments.list(scope, filter, page), presentPayment);
    },

    /** A payment of a store already checked against the caller (`Store.pos_payment`), under the store's merchant. */
    async inStore(store: ReachableStore, id: string) {
      return presentPayment(await findInStore(store, "payment", id, (id) => payments.find(id)));
    },

    /** For card results and POS refunds: a payment the caller reaches, as stored. */
    readable,

    /**
     * What a customer spent over business days `from` to `to` (both included, the stores' time zone): payments less
     * refunds of the customer's bills, counted as the lifetime `total_spent` is. The customer is one its reader was
     * allowed to read (`Customer.spend`), so this checks the range only.
     */
    async customerSpend(customer: { id: string; merchant_id: number }, args: { from: string; to: string }) {
      const { from, to } = parseInput(customerSpendQuery, args);
      if (to < from) throw invalidField("to", "not_before_from", "to must not be before from");
      const { start } = dayWindow(from);
      const { end } = dayWindow(to);
      const spend = await payments.customerSpend(customer, start, end);
      return {
        from,
        to,
        starts_at: start,
        ends_at: end,
        paid_amount: spend.paid,
        payment_count: spend.payments,
        refunded_amount: spend.refunded,
        refund_count: spend.refunds,
        spent_amount: spend.paid - spend.refunded,
      };
    },

    /** The payment as stored, for what the system does on its own (a receipt e-mailed); null when there is none. */
    row: (id: string) => (isUuid(id) ? payments.find(id) : Promise.resolve(null)),
  };
}
