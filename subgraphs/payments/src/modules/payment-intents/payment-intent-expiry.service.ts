import { AppError, paymentIntentMachine } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { PaymentIntent } from "../../generated/prisma/client";
import type { PaymentIntentRepository } from "./payment-intent.repository";

/** What expiry does to an open intent, whether a read or the sweeper sees it first. */
export const EXPIRY = {
  failure_code: "expired",
  failure_message: "the payment intent expired before it was completed",
};

export const expired = () => new AppError("intent_expired", "the payment intent has expired");

export const isExpired = (intent: PaymentIntent) => intent.status === "cancelled" && intent.failure_code === "expired";

/**
 * Expiry holds whether or not the sweeper ran: an open intent read after `expires_at` is cancelled (failure_code
 * `expired`) with its event, by whichever read (or sweep) sees it first.
 */
export async function observeExpiry(
  intents: PaymentIntentRepository,
  clock: Clock,
  intent: PaymentIntent,
): Promise<PaymentIntent> {
  const now = clock();
  if (!paymentIntentMachine.allows(intent.status, "expire") || intent.expires_at > now) return intent;
  const moved = await intents.transition(intent.id, intent.status, "expire", EXPIRY, now);
  return moved ?? (await intents.findById(intent.id)) ?? intent;
}
