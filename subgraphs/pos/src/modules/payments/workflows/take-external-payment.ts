import { type Caller, createStep, createWorkflow } from "@pos-cloud/common";
import type { GatewayIntent } from "../gateway.client";
import type { PaymentRow, Tx } from "../payment.repository";
import { auditPayment } from "../payment-audit";
import { holdBill, intentBody, intentKey, type PaymentDeps, type PaymentDraft } from "./payment-flow";

export interface ExternalPayment {
  draft: PaymentDraft;
  /** Who takes the payment: the audit record's actor. */
  actor: Caller;
  /** Keeps the payment as its Idempotency-Key's answer, in the transaction that attaches its intent. */
  remember(tx: Tx, row: PaymentRow): Promise<void>;
}

/**
 * Takes a card or QR payment: the bill is reserved (the payment recorded pending, holding its amount), the gateway
 * intent made, then attached to the payment. A failure cancels the intent and fails the payment, which frees the
 * bill; a process that dies between the steps leaves a pending payment without its intent, for the recovery pass.
 */
export function takeExternalPayment(deps: PaymentDeps) {
  const { payments, gateway } = deps;
  const reserveBill = createStep(
    "reserve-bill",
    ({ draft, actor }: ExternalPayment) =>
      payments.transaction(async (tx) => {
        await holdBill(deps, tx, draft);
        const row = await payments.create(tx, draft);
        await auditPayment(tx, "payment.created", actor, row, deps.clock());
      }),
    (_, { draft }, failure) =>
      payments.transaction((tx) =>
        payments.settle(tx, draft.id, "fail", {
          failure_code: "gateway_error",
          failure_message:
            failure.step === createIntent.id ? messageOf(failure.error) : "the payment could not be recorded",
        }),
      ),
  );
  const createIntent = createStep(
    "create-intent",
    (draft: PaymentDraft) => gateway.createIntent(intentBody(draft), intentKey(draft.id)),
    async (intent) => {
      if (intent.payment_token) await gateway.cancel(intent.id, intent.payment_token.token).catch(() => undefined);
    },
  );
  const attachIntent = createStep(
    "attach-intent",
    ({ payment, intent }: { payment: ExternalPayment; intent: GatewayIntent }) =>
      payments.transaction(async (tx) => {
        const row = await payments.update(tx, payment.draft.id, {
          payment_intent_id: intent.id,
          payment_token: intent.payment_token?.token ?? null,
        });
        await payment.remember(tx, row);
        return row;
      }),
  );

  return createWorkflow("takeExternalPayment", async (payment: ExternalPayment, run) => {
    await run(reserveBill, payment);
    const intent = await run(createIntent, payment.draft);
    return run(attachIntent, { payment, intent });
  });
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
