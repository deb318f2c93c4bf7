import { invalidField, type PaymentIntentEvent } from "@pos-cloud/common";
import type { PaymentIntent } from "../../generated/prisma/client";
import { parseAmount } from "./payment-intent.inputs";

/** A capture's body: the spec's `amount` (the intent's own), or `amount_to_capture` (docs/decisions/gateway.md). */
export interface CaptureInput {
  amount?: unknown;
  amount_to_capture?: unknown;
}

const sent = (value: unknown) => value !== undefined && value !== null;

/** The most an external intent may be captured for: its amount plus the store's tip ceiling, rounded down. */
export const capturableFor = (amount: number, tipCeilingPercent: number) =>
  amount + Math.floor((amount * tipCeilingPercent) / 100);

/** What a capture takes and the move it is; a refused amount is a 400 naming its field, before anything is written. */
export function captureOf(
  intent: Pick<PaymentIntent, "amount" | "amount_capturable">,
  input: CaptureInput,
): { event: PaymentIntentEvent; amount_received: number } {
  if (sent(input.amount) && sent(input.amount_to_capture))
    throw invalidField("amount_to_capture", "one_of", "send amount or amount_to_capture, not both");
  if (sent(input.amount) && parseAmount(input.amount) !== intent.amount)
    throw invalidField("amount", "equals_intent_amount", "amount must equal the payment intent's amount");
  if (!sent(input.amount_to_capture)) return { event: "capture", amount_received: intent.amount };
  const wanted = parseAmount(input.amount_to_capture, "amount_to_capture");
  const ceiling = Math.max(intent.amount_capturable, intent.amount);
  if (wanted > ceiling) {
    const why =
      ceiling === intent.amount
        ? `amount_to_capture must be at most the amount, ${intent.amount}: the store takes no tip at capture`
        : `amount_to_capture must be at most ${ceiling}: the amount, ${intent.amount}, and the store's tip ceiling`;
    throw invalidField("amount_to_capture", "tip_ceiling", why);
  }
  if (wanted === intent.amount) return { event: "capture", amount_received: wanted };
  return { event: wanted > intent.amount ? "capture_with_tip" : "capture_partial", amount_received: wanted };
}
