import { randomUUID } from "node:crypto";
import {
  AppError,
  type Caller,
  createStep,
  createWorkflow,
  idempotencyRequest,
  invalidField,
  parseInput,
  requireDevice,
  roles,
  tierOf,
} from "@pos-cloud/common";
import type { StoreIdempotency, StoreKey } from "../idempotency";
import { type GatewayClient, PAYMENT_SCOPE, type PaymentService } from "../payments";
import type { StoreAccess } from "../stores";
import { type RefundCreate, refundCreate } from "./refund.inputs";
import type { RefundRepository, RefundRow, Tx } from "./refund.repository";
import { refundSending } from "./refund-sending.service";

export type RefundService = ReturnType<typeof refundService>;

type Payment = Awaited<ReturnType<PaymentService["readable"]>>;
type RefundAnswer = { refund: RefundRow; payment: Awaited<ReturnType<PaymentService["get"]>> };
type Approver = Awaited<ReturnType<StoreAccess["approveRefund"]>>;

/** A refund asked for: by whom, of which payment, what, and the key that keeps its answer. */
interface RefundRequest {
  caller: Caller;
  payment: Payment;
  data: RefundCreate;
  key: StoreKey<RefundAnswer>;
}

/** What binds a refund's Idempotency-Key: its payment and body, without the approver's PIN (a hash would give it away). */
const refundRequest = (key: string | null | undefined, payment_id: string, data: RefundCreate) => {
  const { staff_pin: _, ...parameters } = data;
  return idempotencyRequest(key, "refundPosPayment", { payment_id, input: parameters });
};

/**
 * The refund's approver, audit-logged by the portal with the refund: a staff leader (L5) or above of the store, who
 * gives their PIN with their staff code, since a login id is printed on receipts. Only a caller of L5 or above who
 * names itself approves without it (the portal checks that the staff code is the caller's own).
 */
function approve(access: StoreAccess, caller: Caller, payment: Payment, data: RefundCreate, refundId: string) {
  const tier = caller.type === "user" ? tierOf(caller) : undefined;
  const mayApproveItself = tier !== undefined && tier <= roles.STAFF_LEADER;
  if (!mayApproveItself && !data.staff_pin)
    throw invalidField("staff_pin", "required", "below a staff leader (L5), a refund needs the approver's staff_pin");
  return access.approveRefund({
    store_id: payment.store_id,
    login_id: data.staff_code,
    secret: data.staff_pin ?? null,
    payment_id: payment.id,
    refund_id: refundId,
    amount: data.refund_amount,
    caller: `${caller.type}:${caller.id}`,
  });
}

/** Only a completed payment with its gateway intent gives back money, at most what no other refund holds. */
async function requireRefundable(tx: Tx, refunds: RefundRepository, payment: Payment, amount: number) {
  if (payment.status !== "completed" || !payment.payment_intent_id)
    throw new AppError("invalid_state", `a ${payment.status} payment cannot be refunded`, { status: payment.status });
  const refundable = payment.total_amount - (await refunds.held(tx, payment.id));
  if (amount > refundable)
    throw invalidField(
      "refund_amount",
      "refundable_amount",
      `at most ${refundable} of ${payment.total_amount} can be refunded`,
    );
}

/**
 * An e-money refund is the reader's cancellation of the whole transaction, with the customer's card at the reader:
 * the brands cancel whole payments only (docs/decisions/pos.md, "E-money pays"), so a part is refused before anything
 * is approved or recorded.
 */
function requireWholeEmoney(payment: Payment, data: RefundCreate) {
  if (payment.method_type === "EMONEY" && data.refund_amount !== payment.amount)
    throw invalidField(
      "refund_amount",
      "whole_payment",
      `an e-money payment is refunded whole: refund_amount must be ${payment.amount}`,
    );
}

/**
 * Records a refund pending, holding its amount under the payment's row lock so concurrent refunds never exceed the
 * payment; only a completed payment with its gateway intent is refunded.
 */
async function holdRefund(
  tx: Tx,
  refunds: RefundRepository,
  payments: PaymentService,
  paymentId: string,
  refund: Omit<Parameters<RefundRepository["create"]>[1], "merchant_id" | "store_id" | "payment_id" | "bill_id">,
) {
  const locked = await payments.lock(tx, paymentId);
  await requireRefundable(tx, refunds, locked, refund.amount);
  return refunds.create(tx, {
    ...refund,
    merchant_id: locked.merchant_id,
    store_id: locked.store_id,
    payment_id: locked.id,
    bill_id: locked.bill_id,
  });
}

/**
 * Refunds of POS payments, through the gateway's refund of the payment's intent (QR at its provider; cash, card and
 * e-money are recorded there), as a workflow (`refundPosPayment`): approved, recorded pending (`holdRefund`), then
 * sent to the gateway (`refundSending`); a failure after the hold has the key answer the refund if it stays pending.
 */
export function refundService(
  refunds: RefundRepository,
  payments: PaymentService,
  access: StoreAccess,
  gateway: GatewayClient,
  clock: () => Date,
  keys: StoreIdempotency,
) {
  const sending = refundSending(refunds, payments, gateway, clock);
  const answer = async ({ caller, payment }: RefundRequest, id: string): Promise<RefundAnswer> => ({
    refund: await refunds.find(id),
    payment: await payments.get(caller, payment.id),
  });
  const remember = (key: StoreKey<RefundAnswer>, result: RefundAnswer) =>
    refunds.transaction((tx) => key.complete(tx, result));

  // Checked before the approver is asked, so a refusal leaves no approval on record; again under the lock.
  const approveRefund = createStep("approve-refund", async (request: RefundRequest & { id: string }) => {
    await refunds.transaction((tx) => requireRefundable(tx, refunds, request.payment, request.data.refund_amount));
    return approve(access, request.caller, request.payment, request.data, request.id);
  });
  const recordPending = createStep(
    "hold-refund",
    ({ request: { caller, payment, data }, id, staff }: { request: RefundRequest; id: string; staff: Approver }) =>
      refunds.transaction((tx) =>
        holdRefund(tx, refunds, payments, payment.id, {
          id,
          amount: data.refund_amount,
          reason: data.reason,
          staff_code: staff.login_id,
          device_id: caller.type === "device" ? caller.id : null,
          user_id: caller.type === "user" ? caller.id : null,
          created_at: clock(),
        }),
      ),
    // A refund the gateway may have made stays pending: the key then answers it, so a retry cannot refund twice (a
    // completed key is not freed when the work fails).
    async (refund, { request }) => {
      if ((await refunds.find(refund.id)).status === "pending")
        await remember(request.key, await answer(request, refund.id));
    },
  );
  const sendRefund = createStep("send-refund", ({ refund, payment }: { refund: RefundRow; payment: Payment }) =>
    sending.send(refund, payment.payment_intent_id!),
  );

  /** Approves, holds and sends one refund; its key keeps the answer, also of a refund left pending by a failure. */
  const makeRefund = createWorkflow("refundPosPayment", async (request: RefundRequest, run) => {
    const id = randomUUID();
    const staff = await run(approveRefund, { ...request, id });
    const refund = await run(recordPending, { request, id, staff });
    await run(sendRefund, { refund, payment: request.payment });
    const result = await answer(request, refund.id);
    await remember(request.key, result);
    return result;
  });

  return {
    /**
     * Refunds all or part of a completed payment, approved (`approve`) by a staff leader (L5) or above of the store.
     * An Idempotency-Key replays the first answer, like payments.
     */
    async refund(caller: Caller, paymentId: string, input: unknown, key?: string | null) {
      if (caller.type === "device") requireDevice(caller, { scope: PAYMENT_SCOPE });
      const data = parseInput(refundCreate, input);
      const payment = await payments.readable(caller, paymentId);
      requireWholeEmoney(payment, data);
      return keys.run<RefundAnswer>(payment.store_id, refundRequest(key, payment.id, data), (claimed) =>
        makeRefund({ caller, payment, data, key: claimed }),
      );
    },

    /** The recovery pass of refunds left pending (`refundSending`), the job `pos-refund-recovery`. */
    recoverStale: (now?: Date) => sending.recoverStale(now),

    /** A payment's refunds and what remains refundable; refunds left unanswered are asked about again first. */
    async status(caller: Caller, paymentId: string) {
      await sending.resume(await payments.readable(caller, paymentId));
      const payment = await payments.readable(caller, paymentId);
      const list = await refunds.listForPayment(payment.id);
      const held = list.filter((refund) => refund.status !== "failed").reduce((sum, refund) => sum + refund.amount, 0);
      return {
        payment_id: payment.id,
        payment_status: payment.status,
        amount: payment.total_amount,
        refund_amount: payment.refund_amount,
        pending_amount: held - payment.refund_amount,
        refundable_amount: payment.status === "completed" ? payment.total_amount - held : 0,
        refunds: list,
      };
    },
  };
}
