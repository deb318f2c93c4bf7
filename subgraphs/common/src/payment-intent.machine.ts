import { stateMachine } from "./state-machine";

/**
 * A PaymentIntent's states and moves (spec, "PaymentIntent status"). It lives in common rather than beside the
 * payments module because its states are the gateway's contract: the edge ends a subscription on a terminal state,
 * the POS settles a payment on a terminal event, and neither may import the payments subgraph.
 */
export const paymentIntentStatuses = [
  "requires_payment_method",
  "requires_action",
  "processing",
  "succeeded",
  "failed",
  "cancelled",
  "cancelling",
] as const;
export type PaymentIntentStatus = (typeof paymentIntentStatuses)[number];

/** Where create puts an intent, by processing mode: a cash intent is paid at once. */
export const initialPaymentIntentStatus = {
  pgw_processed: "requires_payment_method",
  external: "requires_action",
  manual: "succeeded",
} as const satisfies Record<string, PaymentIntentStatus>;

const open = ["requires_payment_method", "requires_action"] as const;
const waiting = ["requires_action", "processing"] as const;
const unfinished = ["requires_payment_method", "requires_action", "processing"] as const;

export const paymentIntentMachine = stateMachine({
  name: "payment intent",
  states: paymentIntentStatuses,
  terminal: ["succeeded", "failed", "cancelled"],
  moves: [
    {
      from: "requires_payment_method",
      event: "confirm",
      to: "requires_action",
      emits: "payment_intent.requires_action",
    },
    // The provider's word, by webhook or poll: never backwards, so a late or repeated one finds nothing to move.
    { from: "requires_action", event: "provider_processing", to: "processing", emits: "payment_intent.processing" },
    ...waiting.map((from) => ({
      from,
      event: "provider_succeeded" as const,
      to: "succeeded" as const,
      emits: "payment_intent.succeeded",
    })),
    ...unfinished.map((from) => ({
      from,
      event: "provider_failed" as const,
      to: "failed" as const,
      emits: "payment_intent.failed",
    })),
    ...waiting.map((from) => ({
      from,
      event: "provider_cancelled" as const,
      to: "cancelled" as const,
      emits: "payment_intent.cancelled",
    })),
    // Capture records an external or manual payment; the service refuses it for pgw_processed intents. It takes the
    // amount, more (a tip added after authorisation, up to the store's ceiling) or less (the rest is released).
    ...(["capture", "capture_with_tip", "capture_partial"] as const).flatMap((event) =>
      waiting.map((from) => ({ from, event, to: "succeeded" as const, emits: "payment_intent.succeeded" })),
    ),
    ...open.map((from) => ({
      from,
      event: "cancel" as const,
      to: "cancelled" as const,
      emits: "payment_intent.cancelled",
    })),
    // Expiry: `processing` waits for the provider's word instead.
    ...open.map((from) => ({
      from,
      event: "expire" as const,
      to: "cancelled" as const,
      emits: "payment_intent.cancelled",
    })),
    // A refund the provider must make holds the intent in cancelling until it answers, either way.
    { from: "succeeded", event: "refund_via_provider", to: "cancelling", emits: "payment_intent.cancelling" },
    { from: "cancelling", event: "refund_settled", to: "succeeded", emits: "payment_intent.succeeded" },
  ],
});

export type PaymentIntentEvent = Parameters<typeof paymentIntentMachine.transition>[1];

/** The domain events of moves into a terminal state: the ones partners hear of and the POS settles payments on. */
export const paymentIntentTerminalEvents: ReadonlySet<string> = new Set(
  paymentIntentMachine.moves.flatMap((move) =>
    paymentIntentMachine.terminal.has(move.to) && move.emits ? [move.emits] : [],
  ),
);
