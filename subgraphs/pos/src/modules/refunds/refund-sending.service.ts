import { AppError, type Caller, logger } from "@pos-cloud/common";
import { type GatewayClient, gatewayMayRetry, type PaymentService } from "../payments";
import type { RefundRepository, RefundRow } from "./refund.repository";

/**
 * A refund whose request has not answered for this long is taken over by the recovery pass: longer than the gateway
 * call's own timeout (10 s), so a request still waiting for its answer is left alone.
 */
export const STALE_REFUND_MS = 60_000;
/** At most this many stale refunds per recovery pass. */
const RECOVERY_BATCH = 50;
/**
 * How long one process keeps a stale refund to itself: longer than its gateway call may take (the client's 10 s
 * timeout), so a lease ends only once its holder died.
 */
const RECOVERY_LEASE_MS = 60_000;

/** Who asked for a refund, as its row names them: the audit record's actor (its address is not kept). */
const requesterOf = (refund: RefundRow): Caller | null => {
  if (refund.user_id) return { type: "user", id: refund.user_id, scopes: [] };
  return refund.device_id ? { type: "device", id: refund.device_id, scopes: [] } : null;
};

/**
 * Pending refunds sent to the gateway under a key derived from the refund; its answer moves the refund, the payment
 * and the bill in one transaction.
 */
export function refundSending(
  refunds: RefundRepository,
  payments: PaymentService,
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
      // A call the gateway did not settle (no answer, "try again", the same key still running there) leaves the
      // refund pending, holding its amount, for the recovery pass: the gateway may have made it. A refusal fails it.
      if (error instanceof AppError && !gatewayMayRetry(error))
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

  /** Sends a stale refund again; false when the gateway did not settle it (it stays pending for the next pass). */
  async function resend(refund: RefundRow, intentId: string) {
    try {
      await send(refund, intentId);
      return true;
    } catch (error) {
      // Over a minute without the gateway's answer: money may have left, and the refund still holds its amount.
      logger.warn("resuming a POS refund failed", {
        alert: "pos_refund_pending",
        refund_id: refund.id,
        error: String(error),
      });
      return !gatewayMayRetry(error);
    }
  }

  return {
    send,

    /**
     * The recovery pass (job `pos-refund-recovery`): refunds a crash or a lost answer left pending are sent again under
     * their key, oldest first, one at a time under a lease (`claimStale`, so two passes never send one), and the
     * gateway's first answer (or the refund it makes now) is recorded once. Stops at the first refund the gateway does
     * not settle. Returns the ids of those the gateway answered for.
     */
    async recoverStale(now: Date = clock()) {
      const before = new Date(now.getTime() - STALE_REFUND_MS);
      const until = new Date(now.getTime() + RECOVERY_LEASE_MS);
      const answered: string[] = [];
      for (let handled = 0; handled < RECOVERY_BATCH; handled++) {
        const refund = await refunds.claimStale(before, now, until);
        if (!refund) break;
        const intentId = await payments.intentOf(refund.payment_id);
        if (!intentId) continue;
        if (!(await resend(refund, intentId))) break;
        answered.push(refund.id);
      }
      return answered;
    },

    /** The recovery pass of one payment: its refunds whose request ended without the gateway's answer are asked again. */
    async resume(payment: { id: string; payment_intent_id: string | null }) {
      if (!payment.payment_intent_id) return;
      for (const refund of await refunds.stale(payment.id, new Date(clock().getTime() - STALE_REFUND_MS)))
        await resend(refund, payment.payment_intent_id);
    },
  };
}
