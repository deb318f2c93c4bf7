import { randomUUID } from "node:crypto";
import { AppError, type Caller, idempotencyRequest, invalidField, parseInput, requireDevice } from "@pos-cloud/common";
import type { StoreIdempotency } from "../idempotency";
import type { StoreAccess } from "../stores";
import { type CardResult, cardResult, emoneyResult, type PaymentCreate, paymentCreate } from "./payment.inputs";
import { paymentMachine } from "./payment.machine";
import { presentPayment } from "./payment.presenter";
import type { PaymentRow, Tx } from "./payment.repository";
import { paymentFollowUp } from "./payment-follow-up.service";
import { paymentReads } from "./payment-reads.service";
import { paymentRefunds } from "./payment-refunds.service";
import { completeCardPayment, failCardPayment } from "./workflows/complete-card-payment";
import { type PaymentDeps, paymentDraft } from "./workflows/payment-flow";
import { takeCashPayment } from "./workflows/take-cash-payment";
import { takeExternalPayment } from "./workflows/take-external-payment";

export type PaymentService = ReturnType<typeof paymentService>;

/** The device token scope that lets a terminal take payments. */
export const PAYMENT_SCOPE = "payment:create";

/** Cash must cover the amount and its tip; the change is what it exceeds them by. */
function requireCash(data: PaymentCreate): number | undefined {
  if (data.payment_method.type !== "CASH") return undefined;
  if (data.cash_received === undefined)
    throw invalidField("cash_received", "required", "cash_received is required for cash");
  if (data.cash_received < data.amount + data.tip_amount)
    throw invalidField("cash_received", "at_least_amount", "cash_received must be at least the amount and its tip");
  return data.cash_received;
}

/**
 * The terminal's result for a card or e-money payment, by the payment's method; what the terminal says it charged
 * must be what the payment asked.
 */
function readerResultOf(payment: PaymentRow, input: unknown): CardResult {
  if (payment.method_type !== "CREDIT_CARD" && payment.method_type !== "EMONEY")
    throw new AppError("invalid_state", "only a card or e-money payment takes a terminal's result", {
      method: payment.method_type,
    });
  const result = parseInput(payment.method_type === "EMONEY" ? emoneyResult : cardResult, input);
  if (result.amount !== undefined && result.amount !== payment.amount)
    throw invalidField("amount", "payment_amount", `the payment is for ${payment.amount}, not ${result.amount}`);
  return result;
}

/**
 * POS payments: taking them (the workflows of `workflows/`), reading them (`paymentReads`), what refunds ask of them
 * (`paymentRefunds`), and what finishes them without a request (`paymentFollowUp`: the gateway's events, recovery).
 */
export function paymentService(deps: PaymentDeps & { access: StoreAccess; keys: StoreIdempotency }) {
  const { bills, clock, keys } = deps;
  const flows = {
    cash: takeCashPayment(deps),
    external: takeExternalPayment(deps),
    cardApproved: completeCardPayment(deps),
    cardRefused: failCardPayment(deps),
  };
  const reads = paymentReads(deps);

  return {
    /**
     * Takes a payment of a bill (or of one of its splits). An Idempotency-Key (per store, 24 hours) replays the first
     * response; the same key with other parameters, or while the first request runs, is `idempotency_conflict`.
     */
    async create(caller: Caller, input: unknown, key?: string | null) {
      if (caller.type === "device") requireDevice(caller, { scope: PAYMENT_SCOPE });
      const data = parseInput(paymentCreate, input);
      const receivedAt = clock();
      const happened = deps.saleTime(data.occurred_at, receivedAt);
      const bill = await bills.get(caller, data.bill_id);
      await deps.access.requireOpenStore(caller, bill.store_id);
      const cash_received = requireCash(data);
      const request = idempotencyRequest(key, "createPosPayment", { input: data });
      const { replayed, ...payment } = await keys.run(
        bill.store_id,
        request,
        async (claimed) => {
          const remember = (tx: Tx, row: PaymentRow) => claimed.complete(tx, presentPayment(row));
          const draft = paymentDraft(claimed.payment_id!, caller, bill, data, receivedAt, happened);
          const row =
            cash_received === undefined
              ? await flows.external({ draft, actor: caller, remember })
              : await flows.cash({ draft, actor: caller, cash_received, remember });
          return presentPayment(row);
        },
        { payment_id: randomUUID() },
      );
      return { payment, replayed };
    },

    /**
     * The card app's (or e-money reader's) result for a payment in flight. Approved: the intent is captured and the
     * payment completes with its money applied to the bill (`completeCardPayment`). Declined, failed or cancelled: the
     * payment fails and the intent is cancelled, the bill stays payable (`failCardPayment`).
     */
    async recordCardResult(caller: Caller, id: string, input: unknown) {
      if (caller.type === "device") requireDevice(caller, { scope: PAYMENT_SCOPE });
      const payment = await reads.readable(caller, id);
      const result = readerResultOf(payment, input);
      paymentMachine.transition(payment.status, result.status === "success" ? "complete" : "fail");
      const { payment_intent_id } = payment;
      if (!payment_intent_id)
        throw new AppError("invalid_state", "the payment has no gateway intent yet to take a card result", {
          status: payment.status,
        });
      const outcome = { payment: { ...payment, payment_intent_id }, result, actor: caller };
      await (result.status === "success" ? flows.cardApproved(outcome) : flows.cardRefused(outcome));
      return presentPayment(await reads.readable(caller, id));
    },

    ...reads,
    ...paymentRefunds(deps),
    ...paymentFollowUp(deps, keys),
  };
}
