import { createHash, randomUUID } from "node:crypto";
import {
  AppError,
  type Caller,
  invalidField,
  logger,
  parseInput,
  requireDevice,
  roles,
  tierOf,
} from "@pos-cloud/common";
import type { GatewayClient } from "../payments/gateway.client";
import { PAYMENT_SCOPE, type PaymentService } from "../payments/payment.service";
import type { StoreAccess } from "../stores/store-access.service";
import { type RefundCreate, refundCreate } from "./refund.inputs";
import type { RefundRepository, RefundRow } from "./refund.repository";

export type RefundService = ReturnType<typeof refundService>;

/** A refund whose request has not answered for this long is taken over by the recovery pass. */
const STALE_REFUND_MS = 60_000;

const fingerprint = (payment_id: string, data: RefundCreate) =>
  createHash("sha256")
    .update(JSON.stringify(["refund", payment_id, data.refund_amount, data.reason, data.staff_code]))
    .digest("hex");

/**
 * Refunds of POS payments, through the gateway's refund of the payment's intent (QR at its provider; cash and card
 * are recorded there). A refund is recorded pending first, holding its amount under the payment's row lock, so
 * concurrent refunds never exceed the payment; the gateway is asked under a key derived from the refund; its answer
 * moves the refund, the payment and the bill in one transaction.
 */
/** Who asked for a refund, as its row names them: the audit record's actor (its address is not kept). */
const requesterOf = (refund: RefundRow): Caller | null => {
  if (refund.user_id) return { type: "user", id: refund.user_id, scopes: [] };
  return refund.device_id ? { type: "device", id: refund.device_id, scopes: [] } : null;
};

export function refundService(
  refunds: RefundRepository,
  payments: PaymentService,
  access: StoreAccess,
  gateway: GatewayClient,
  clock: () => Date,
) {
  /** Writes the gateway's answer for a pending refund, once. */
  async function finish(refund: RefundRow, answer: { id: string; status: string }) {
    if (answer.status === "pending") return;
    await refunds.transaction(async (tx) => {
      if (answer.status !== "succeeded") {
        await refunds.settle(tx, refund.id, "fail", { gateway_refund_id: answer.id, completed_at: clock() });
        return;
      }
      const moved = await refunds.settle(tx, refund.id, "succeed", {
        gateway_refund_id: answer.id,
        completed_at: clock(),
      });
      if (moved) await payments.applyRefund(tx, { ...refund, actor: requesterOf(refund) });
    });
  }

  /** Asks the gateway for a pending refund (again: the key finds the first answer) and writes what it says. */
  async function send(refund: RefundRow, intentId: string) {
    try {
      await finish(refund, await gateway.refund(intentId, refund.amount, refund.reason, `pos-refund-${refund.id}`));
    } catch (error) {
      // An unanswered call leaves the refund pending (holding its amount) for the recovery pass; a refusal fails it.
      if (error instanceof AppError && error.code !== "bad_gateway")
        await refunds.transaction((tx) =>
          refunds.settle(tx, refund.id, "fail", {
            failure_code: String(error.details?.gateway_code ?? error.code),
            failure_message: error.message,
            completed_at: clock(),
          }),
        );
      throw error;
    }
  }

  /**
   * The refund's approver, audit-logged by the portal with the refund: a staff leader (L5) or above of the store; a
   * caller below L5 (staff, a terminal) gives that member's PIN too, since a login id is printed on receipts.
   */
  async function approve(
    caller: Caller,
    payment: Awaited<ReturnType<PaymentService["readable"]>>,
    data: RefundCreate,
    refundId: string,
  ) {
    const tier = caller.type === "user" ? tierOf(caller) : undefined;
    const selfApproved = tier !== undefined && tier <= roles.STAFF_LEADER;
    if (!selfApproved && !data.staff_pin)
      throw invalidField("staff_pin", "required", "below a staff leader (L5), a refund needs the approver's staff_pin");
    return access.approveRefund({
      store_id: payment.store_id,
      login_id: data.staff_code,
      secret: selfApproved ? null : data.staff_pin,
      payment_id: payment.id,
      refund_id: refundId,
      amount: data.refund_amount,
      caller: `${caller.type}:${caller.id}`,
    });
  }

  /** The recovery pass of one payment: its refunds whose request ended without the gateway's answer are asked again. */
  async function resume(payment: { id: string; payment_intent_id: string | null }) {
    if (!payment.payment_intent_id) return;
    for (const refund of await refunds.stale(payment.id, new Date(clock().getTime() - STALE_REFUND_MS)))
      await send(refund, payment.payment_intent_id).catch((error) =>
        logger.warn("resuming a POS refund failed", { refund_id: refund.id, error: String(error) }),
      );
  }

  return {
    /**
     * Refunds all or part of a completed payment, approved (`approve`) by a staff leader (L5) or above of the store.
     * An Idempotency-Key replays the first answer, like payments.
     */
    async refund(caller: Caller, paymentId: string, input: unknown, key?: string | null) {
      if (caller.type === "device") requireDevice(caller, { scope: PAYMENT_SCOPE });
      const data = parseInput(refundCreate, input);
      const payment = await payments.readable(caller, paymentId);
      const claim = await payments.keys.claim(payment.store_id, key, fingerprint(payment.id, data));
      if (claim?.replayed) return { ...(claim.response as object), replayed: true };
      const answer = async (id: string) => ({
        refund: await refunds.find(id),
        payment: await payments.get(caller, payment.id),
      });
      const remember = async (result: unknown) => {
        if (key) await refunds.transaction((tx) => payments.keys.complete(tx, payment.store_id, key, result));
      };
      let refund: RefundRow | undefined;
      try {
        const id = randomUUID();
        const staff = await approve(caller, payment, data, id);
        refund = await refunds.transaction(async (tx) => {
          const locked = await payments.lock(tx, payment.id);
          if (locked.status !== "completed" || !locked.payment_intent_id)
            throw new AppError("invalid_state", `a ${locked.status} payment cannot be refunded`, {
              status: locked.status,
            });
          const refundable = locked.amount - (await refunds.held(tx, locked.id));
          if (data.refund_amount > refundable)
            throw invalidField(
              "refund_amount",
              "refundable_amount",
              `at most ${refundable} of ${locked.amount} can be refunded`,
            );
          return refunds.create(tx, {
            id,
            merchant_id: locked.merchant_id,
            store_id: locked.store_id,
            payment_id: locked.id,
            bill_id: locked.bill_id,
            amount: data.refund_amount,
            reason: data.reason,
            staff_code: staff.login_id,
            device_id: caller.type === "device" ? caller.id : null,
            user_id: caller.type === "user" ? caller.id : null,
            created_at: clock(),
          });
        });
        await send(refund, payment.payment_intent_id!);
        const result = await answer(refund.id);
        await remember(result);
        return { ...result, replayed: false };
      } catch (error) {
        // A refund the gateway may have made stays pending: the key then answers it, so a retry cannot refund twice.
        const pending = refund && (await refunds.find(refund.id)).status === "pending";
        if (pending) await remember(await answer(refund!.id));
        else if (key) await payments.keys.release(payment.store_id, key);
        throw error;
      }
    },

    /** A payment's refunds and what remains refundable; refunds left unanswered are asked about again first. */
    async status(caller: Caller, paymentId: string) {
      await resume(await payments.readable(caller, paymentId));
      const payment = await payments.readable(caller, paymentId);
      const list = await refunds.listForPayment(payment.id);
      const held = list.filter((refund) => refund.status !== "failed").reduce((sum, refund) => sum + refund.amount, 0);
      return {
        payment_id: payment.id,
        payment_status: payment.status,
        amount: payment.amount,
        refund_amount: payment.refund_amount,
        pending_amount: held - payment.refund_amount,
        refundable_amount: payment.status === "completed" ? payment.amount - held : 0,
        refunds: list,
      };
    },
  };
}
