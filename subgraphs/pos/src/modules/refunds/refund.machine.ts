import { stateMachine } from "@pos-cloud/common";

/** A POS refund: pending while the gateway has not answered, then succeeded or failed. */
export const posRefundStatuses = ["pending", "succeeded", "failed"] as const;

export const posRefundMachine = stateMachine({
  name: "refund",
  states: posRefundStatuses,
  terminal: ["succeeded", "failed"],
  moves: [
    { from: "pending", event: "succeed", to: "succeeded" },
    { from: "pending", event: "fail", to: "failed" },
  ],
});

export type PosRefundEvent = Parameters<typeof posRefundMachine.transition>[1];
