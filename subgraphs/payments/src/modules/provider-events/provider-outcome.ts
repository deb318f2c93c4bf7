import type { PaymentIntent, Prisma } from "../../generated/prisma/client";
import type { PaymentIntentEventType } from "../outbox/outbox.repository";
import type { ProviderFailure, ProviderPaymentStatus } from "../providers/provider";

export interface ProviderOutcome extends ProviderFailure {
  status: ProviderPaymentStatus;
  amount: number;
  currency: string;
}

/**
 * Why a provider's word cannot be about this intent, or null: its amount and currency must be the intent's, so a
 * signed "paid" for 1 JPY never settles a 2,222 JPY intent.
 */
export function mismatchOf(intent: PaymentIntent, outcome: ProviderOutcome): string | null {
  const currency = outcome.currency.toUpperCase();
  if (currency !== intent.currency) return `currency ${currency} is not intent ${intent.id}'s ${intent.currency}`;
  if (outcome.amount !== intent.amount) return `amount ${outcome.amount} is not intent ${intent.id}'s ${intent.amount}`;
  return null;
}

export interface OutcomeTransition {
  from: string[];
  change: Prisma.PaymentIntentUncheckedUpdateManyInput & { status: string };
  event: PaymentIntentEventType;
}

/**
 * The intent change a provider's word asks for, the same for a webhook and a poll. `from` holds only states before
 * the target, so a late or repeated notification finds nothing to move: a status never goes backwards. `pending`
 * changes nothing; `refunded` neither, since refunds are the gateway's own calls and recorded there.
 */
export function outcomeTransition(outcome: ProviderOutcome, now: Date): OutcomeTransition | null {
  switch (outcome.status) {
    case "processing":
      return { from: ["requires_action"], change: { status: "processing" }, event: "payment_intent.processing" };
    case "succeeded":
      return {
        from: ["requires_action", "processing"],
        change: { status: "succeeded", captured_at: now },
        event: "payment_intent.succeeded",
      };
    case "failed":
      return {
        from: ["requires_payment_method", "requires_action", "processing"],
        change: {
          status: "failed",
          failure_code: outcome.failure_code ?? "declined",
          failure_message: outcome.failure_message ?? "the provider declined the payment",
        },
        event: "payment_intent.failed",
      };
    case "cancelled":
      return {
        from: ["requires_action", "processing"],
        change: {
          status: "cancelled",
          failure_code: "provider_cancelled",
          failure_message: "the provider cancelled the payment",
        },
        event: "payment_intent.cancelled",
      };
    default:
      return null;
  }
}
