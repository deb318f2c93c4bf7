import { stateMachine } from "@pos-cloud/common";

/** A store's business day: open while it takes payments, closed with its totals fixed. */
export const settlementStatuses = ["open", "closed"] as const;

export const settlementMachine = stateMachine({
  name: "settlement",
  states: settlementStatuses,
  terminal: ["closed"],
  moves: [{ from: "open", event: "close", to: "closed" }],
});
