import { machineBehaviour } from "@pos-cloud/test-support/machine-behaviour";
import { describe, expect, it } from "vitest";
import { paymentIntentMachine, paymentIntentTerminalEvents } from "./payment-intent.machine";

describe("paymentIntentMachine", () => {
  machineBehaviour(paymentIntentMachine, {
    refused: [
      ["succeeded", "cancel"],
      ["cancelled", "capture"],
      ["failed", "confirm"],
      ["requires_action", "confirm"],
      ["processing", "cancel"],
      ["requires_payment_method", "capture"],
      ["cancelled", "capture_with_tip"],
      ["succeeded", "capture_partial"],
      ["cancelling", "refund_via_provider"],
      ["processing", "expire"],
    ],
    // A provider refund of a paid intent holds it in cancelling until the provider answers (refund.repository.ts).
    fromTerminal: ["refund_via_provider"],
  });

  it("gives every event one target, so a conditional update needs no state read first", () => {
    for (const { event } of paymentIntentMachine.moves) expect(paymentIntentMachine.target(event).event).toBe(event);
  });

  it("tells partners and the POS of the moves into succeeded, failed and cancelled", () => {
    expect([...paymentIntentTerminalEvents].sort()).toEqual([
      "payment_intent.cancelled",
      "payment_intent.failed",
      "payment_intent.succeeded",
    ]);
  });
});
