import { createHash, randomUUID } from "node:crypto";
import {
  AppError,
  type Caller,
  invalidField,
  isUuid,
  logger,
  mapPage,
  notFound,
  parseInput,
  paymentIntentTerminalEvents,
  type ReachableStore,
  requireDevice,
} from "@pos-cloud/common";
import type { BusEvent, MessageBus } from "@pos-cloud/common/messaging";
import { type ListArguments, parseListArguments } from "../list-arguments";
import type { StoreAccess } from "../stores/store-access.service";
import type { GatewayIntent } from "./gateway.client";
import { cardResult, type PaymentCreate, paymentCreate, paymentFilter } from "./payment.inputs";
import { paymentMachine } from "./payment.machine";
import { type PresentedPayment, presentPayment } from "./payment.presenter";
import type { PaymentRow, Tx } from "./payment.repository";
import { auditPayment } from "./payment-audit";
import { paymentKeys } from "./payment-keys";
import { completeCardPayment, failCardPayment } from "./workflows/complete-card-payment";
import { type PaymentDeps, paymentDraft } from "./workflows/payment-flow";
import { RECOVERY_BATCH, recoverInterruptedPayments, STALE_AFTER_MS } from "./workflows/recover-interrupted-payments";
import { settleQrPayment } from "./workflows/settle-qr-payment";
import { takeCashPayment } from "./workflows/take-cash-payment";
import { takeExternalPayment } from "./workflows/take-external-payment";

export type PaymentService = ReturnType<typeof paymentService>;

/** A refund the gateway made, as its payment takes it: who asked for it (null: unknown) and who approved it. */
export interface RefundMade {
  id: string;
  payment_id: string;
  amount: number;
  reason: string;
  staff_code: string;
  actor: Caller | null;
}

/** The device token scope that lets a terminal take payments. */
export const PAYMENT_SCOPE = "payment:create";

/** The same parameters give the same fingerprint, whatever order a client wrote them in. */
export const paymentFingerprint = (data: PaymentCreate) =>
  createHash("sha256")
    .update(
      JSON.stringify([
        data.bill_id,
        data.split_id ?? null,
        data.amount,
        data.payment_method.type,
        data.payment_method.provider ?? null,
        // Only when given: keys claimed before the field existed keep their fingerprint.
        ...(data.payment_provider_method_id === undefined ? [] : [data.payment_provider_method_id]),
        data.cash_received ?? null,
      ]),
    )
    .digest("hex");

/** Cash must cover the amount; the change is what it exceeds it by. */
function requireCash(data: PaymentCreate): number | undefined {
  if (data.payment_method.type !== "CASH") return undefined;
  if (data.cash_received === undefined)
    throw invalidField("cash_received", "required", "cash_received is required for cash");
  if (data.cash_received < data.amount)
    throw invalidField("cash_received", "at_least_amount", "cash_received must be at least the amount");
  return data.cash_received;
}

/**
 * POS payments: taking them (the workflows of `workflows/`), reading them, and what other modules ask of them
 * (refunds: the key space, the row lock, the refunded money; the bus consumer that settles QR payments).
 */
export function paymentService(deps: PaymentDeps & { access: StoreAccess }) {
  const { payments, bills, access, gateway, clock, customers } = deps;
  const keys = paymentKeys(payments, clock, STALE_AFTER_MS);
  const flows = {
    cash: takeCashPayment(deps),
    external: takeExternalPayment(deps),
    cardApproved: completeCardPayment(deps),
    cardRefused: failCardPayment(deps),
    settle: settleQrPayment(deps),
    recover: recoverInterruptedPayments(deps),
  };

  async function readable(caller: Caller, id: string): Promise<PaymentRow> {
    const payment = isUuid(id) ? await payments.find(id) : null;
    if (!payment) throw notFound("payment");
    await access.requireRow(caller, payment, "payment");
    return payment;
  }

  return {
    /**
     * The recovery pass: interrupted card and QR payments are cancelled at the gateway and failed
     * (`recoverInterruptedPayments`), then the Idempotency-Keys such deaths left processing are finished or released.
     * Returns the ids of the payments it failed.
     */
    async recoverStalePayments(now: Date = clock()) {
      const recovered = await flows.recover(new Date(now.getTime() - STALE_AFTER_MS));
      await keys.releaseAbandoned(now, RECOVERY_BATCH);
      return recovered;
    },

    /**
     * Takes a payment of a bill (or of one of its splits). An Idempotency-Key (per store, 24 hours) replays the first
     * response; the same key with other parameters, or while the first request runs, is `idempotency_conflict`.
     */
    async create(caller: Caller, input: unknown, key?: string | null) {
      if (caller.type === "device") requireDevice(caller, { scope: PAYMENT_SCOPE });
      const data = parseInput(paymentCreate, input);
      const bill = await bills.get(caller, data.bill_id);
      const cash_received = requireCash(data);
      const claim = await keys.claim(bill.store_id, key, paymentFingerprint(data), randomUUID());
      if (claim?.replayed) return { payment: claim.response as PresentedPayment, replayed: true };
      const remember = async (tx: Tx, row: PaymentRow) => {
        if (key) await keys.complete(tx, bill.store_id, key, presentPayment(row));
      };
      const draft = paymentDraft(claim?.claim.payment_id ?? randomUUID(), caller, bill, data, clock());
      try {
        const row =
          cash_received === undefined
            ? await flows.external({ draft, actor: caller, remember })
            : await flows.cash({ draft, actor: caller, cash_received, remember });
        return { payment: presentPayment(row), replayed: false };
      } catch (error) {
        if (key) await keys.release(bill.store_id, key);
        throw error;
      }
    },

    /** One payment; a QR payment still in flight asks the gateway first, should its event be late. */
    async get(caller: Caller, id: string) {
      const payment = await readable(caller, id);
      const { payment_intent_id, payment_token } = payment;
      if (payment.method_type === "QR" && payment.status === "pending" && payment_intent_id && payment_token) {
        try {
          await flows.settle({ intent: await gateway.retrieve(payment_intent_id, payment_token) });
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

    /**
     * The card app's result for a card payment in flight. Approved: the intent is captured and the payment completes
     * with its money applied to the bill (`completeCardPayment`). Declined, failed or cancelled: the payment fails and
     * the intent is cancelled, the bill stays payable (`failCardPayment`).
     */
    async recordCardResult(caller: Caller, id: string, input: unknown) {
      if (caller.type === "device") requireDevice(caller, { scope: PAYMENT_SCOPE });
      const result = parseInput(cardResult, input);
      const payment = await readable(caller, id);
      if (payment.method_type !== "CREDIT_CARD")
        throw new AppError("invalid_state", "only a card payment takes a card app result", {
          method: payment.method_type,
        });
      paymentMachine.transition(payment.status, result.status === "success" ? "complete" : "fail");
      const { payment_intent_id } = payment;
      if (!payment_intent_id)
        throw new AppError("invalid_state", "the payment has no gateway intent yet to take a card result", {
          status: payment.status,
        });
      const outcome = { payment: { ...payment, payment_intent_id }, result, actor: caller };
      await (result.status === "success" ? flows.cardApproved(outcome) : flows.cardRefused(outcome));
      return presentPayment(await readable(caller, id));
    },

    /** A payment of a store already checked against the caller (`Store.pos_payment`), under the store's merchant. */
    async inStore(store: ReachableStore, id: string) {
      const payment = isUuid(id) ? await payments.find(id) : null;
      if (!payment || payment.store_id !== store.id || payment.merchant_id !== store.merchantId)
        throw notFound("payment");
      return presentPayment(payment);
    },

    /** For POS refunds: a payment the caller reaches, as stored. */
    readable,

    /** For POS refunds: the Idempotency-Keys of payments, shared per store (a refund's fingerprint differs). */
    keys,

    /** The payment as stored, for what the system does on its own (a receipt e-mailed); null when there is none. */
    row: (id: string) => (isUuid(id) ? payments.find(id) : Promise.resolve(null)),

    /** For POS refunds, in the refund's first transaction: the payment locked, to count what its refunds hold. */
    lock: (tx: Tx, id: string) => payments.lock(tx, id),

    /**
     * For POS refunds, in the transaction that records a refund the gateway made: the payment's refunded total and
     * reason (refunded once it is all given back), and the bill's amounts.
     */
    async applyRefund(tx: Tx, refund: RefundMade) {
      const payment = await payments.lock(tx, refund.payment_id);
      const refunded = payment.refund_amount + refund.amount;
      if (refunded > payment.amount)
        throw invalidField("refund_amount", "refundable_amount", `at most ${payment.amount} can be refunded`);
      await payments.update(tx, payment.id, {
        refund_amount: refunded,
        refund_reason: refund.reason,
        status: paymentMachine.transition(
          payment.status,
          refunded === payment.amount ? "refund_in_full" : "refund_in_part",
        ),
      });
      await auditPayment(tx, "payment.refunded", refund.actor, payment, clock(), {
        refund_id: refund.id,
        refund_amount: refund.amount,
        refunded_total: refunded,
        approver_login_id: refund.staff_code,
      });
      const bill = await bills.applyRefund(tx, { bill_id: payment.bill_id, amount: refund.amount });
      await customers.recordRefund(tx, bill, refund.amount);
    },

    /**
     * Consumes the gateway's internal events: an intent that failed or was cancelled (or expired) fails its card or QR
     * payment; a QR intent that succeeded completes its payment (`settleQrPayment`).
     */
    consume: (bus: MessageBus) =>
      bus.consume("events.internal", "pos-payments", async (event: BusEvent) => {
        if (event.aggregate_type !== "payment_intent" || !paymentIntentTerminalEvents.has(event.event_type)) return;
        const intent = event.payload.payment_intent as GatewayIntent | undefined;
        if (intent) await flows.settle({ intent, eventId: event.id });
      }),
  };
}
