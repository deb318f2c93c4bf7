import { stateMachine } from "@pos-cloud/common";

/** A gateway refund: pending while its provider has not answered, then succeeded or failed. */
export const refundStatuses = ["pending", "succeeded", "failed"] as const;

export const refundMachine = stateMachine({
  name: "refund",
  states: refundStatuses,
  terminal: ["succeeded", "failed"],
  moves: [
    { from: "pending", event: "succeed", to: "succeeded" },
    { from: "pending", event: "fail", to: "failed" },
  ],
});
