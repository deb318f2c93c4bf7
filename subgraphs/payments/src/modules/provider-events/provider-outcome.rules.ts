import type { PaymentIntentEvent } from "@pos-cloud/common";
import type { PaymentIntent } from "../../generated/prisma/client";
import type { IntentChange } from "../payment-intents/payment-intent-transition.repository";
import type { ProviderFailure, ProviderPaymentStatus } from "../providers";

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
  event: PaymentIntentEvent;
  change: IntentChange;
}

/**
 * The intent move a provider's word asks for, the same for a webhook and a poll; the machine's table holds only
 * states before the target, so a late or repeated notification finds nothing to move. `pending` changes nothing;
 * `refunded` neither, since refunds are the gateway's own calls and recorded there.
 */
export function outcomeTransition(outcome: ProviderOutcome, now: Date): OutcomeTransition | null {
  switch (outcome.status) {
    case "processing":
      return { event: "provider_processing", change: {} };
    case "succeeded":
      return { event: "provider_succeeded", change: { captured_at: now, amount_received: outcome.amount } };
    case "failed":
      return {
        event: "provider_failed",
        change: {
          failure_code: outcome.failure_code ?? "declined",
          failure_message: outcome.failure_message ?? "the provider declined the payment",
        },
      };
    case "cancelled":
      return {
        event: "provider_cancelled",
        change: { failure_code: "provider_cancelled", failure_message: "the provider cancelled the payment" },
      };
    default:
      return null;
  }
}
