import { type Caller, createStep } from "@pos-cloud/common";
import type { GatewayIntent } from "../gateway.client";
import type { PaymentRow, Tx } from "../payment.repository";
import { auditPayment } from "../payment-audit.repository";
import { applyToBill, holdBill, intentBody, intentKey, type PaymentDeps, type PaymentDraft } from "./payment-flow";

/** The steps the payment workflows share (Medusa's `core-flows` steps): each is defined once, here. */

/** A payment as its first transaction writes it: cash also records what was handed over and the change. */
export type ReservedPayment = PaymentDraft & Partial<Pick<PaymentRow, "cash_received" | "change_amount">>;

/** The step that asks the gateway for a payment's intent: its compensation's `failure.step`. */
export const CREATE_INTENT = "create-intent";

/** Why a payment failed, as its row keeps it. */
export interface PaymentFailure {
  id: string;
  failure_code: string;
  failure_message: string;
}

/**
 * Fails a payment still in flight in a short transaction of its own, which frees its bill. False when another
 * request settled it first: it is then left alone.
 */
export const failPayment = ({ payments }: PaymentDeps) =>
  createStep("fail-payment", ({ id, ...failure }: PaymentFailure) =>
    payments.transaction((tx) => payments.settle(tx, id, "fail", failure)),
  );

/**
 * Cancels an intent with its token, so nobody can pay it. An intent without a token (a manual cash intent, a card's
 * whose token was used) has nothing to cancel.
 */
export const cancelIntent = ({ gateway }: PaymentDeps) =>
  createStep("cancel-intent", async ({ id, token }: { id: string; token: string | null | undefined }) => {
    if (token) await gateway.cancel(id, token);
  });

/**
 * Records the payment pending under its bill's lock, holding its amount (`holdBill`), in a short transaction of its
 * own. Undone by failing the payment, which frees the bill.
 */
export const reserveBill = (deps: PaymentDeps) => {
  const fail = failPayment(deps);
  return createStep(
    "reserve-bill",
    ({ draft, actor }: { draft: ReservedPayment; actor: Caller }) =>
      deps.payments.transaction(async (tx) => {
        await holdBill(deps, tx, draft);
        const row = await deps.payments.create(tx, draft);
        await auditPayment(tx, "payment.created", actor, row, deps.clock());
      }),
    (_, { draft }, failure) =>
      fail.invoke({
        id: draft.id,
        failure_code: "gateway_error",
        failure_message:
          failure.step === CREATE_INTENT ? messageOf(failure.error) : "the payment could not be recorded",
      }),
  );
};

/**
 * Asks the gateway for the payment's intent, with no transaction open, under the payment's key: a retry or a
 * recovery sends the same body and key and gets the same intent. Undone by cancelling it (best effort).
 */
export const createIntent = (deps: PaymentDeps) => {
  const cancel = cancelIntent(deps);
  return createStep(
    CREATE_INTENT,
    (payment: Parameters<typeof intentBody>[0]) =>
      deps.gateway.createIntent(intentBody(payment), intentKey(payment.id)),
    (intent) => cancel.invoke({ id: intent.id, token: intent.payment_token?.token }).catch(() => undefined),
  );
};

/** What completes a pending cash payment: the intent the gateway recorded it by, and who completes it. */
export interface CashCompletion {
  payment: Pick<PaymentRow, "id" | "bill_id" | "occurred_at">;
  intent: Pick<GatewayIntent, "id">;
  /** Null when the recovery pass completes it. */
  actor: Caller | null;
  /** Keeps the payment as its Idempotency-Key's answer, in the transaction that completes it. */
  remember?: (tx: Tx, row: PaymentRow) => Promise<void>;
}

/**
 * Completes a pending cash payment with its intent in a short transaction under the bill's lock, once: the money
 * goes to the bill, the receipt is numbered. Whoever comes second (the request or the recovery pass) finds it
 * settled and only reads it.
 */
export const completeCashPayment = (deps: PaymentDeps) =>
  createStep("complete-cash-payment", ({ payment, intent, actor, remember }: CashCompletion) =>
    deps.payments.transaction(async (tx) => {
      await deps.payments.lockBillPayments(tx, payment.bill_id);
      // Cash changes hands when the sale happens: recorded offline, that is its occurred_at.
      const fields = { payment_intent_id: intent.id, completed_at: payment.occurred_at };
      const completed = await deps.payments.settle(tx, payment.id, "complete", fields);
      const row = await deps.payments.lock(tx, payment.id);
      if (completed) {
        await applyToBill(deps, tx, row);
        await auditPayment(tx, "payment.completed", actor, row, deps.clock());
        await deps.receipts.issue(tx, row.id);
      }
      await remember?.(tx, row);
      return row;
    }),
  );

export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
