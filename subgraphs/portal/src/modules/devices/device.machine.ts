import { stateMachine } from "@pos-cloud/common";

export const deviceStatuses = ["unprovisioned", "pending_activation", "active", "suspended", "decommissioned"] as const;

/**
 * The spec's device lifecycle, plus our moves out of Suspended (resume to Active, or decommission). A new
 * activation code while Pending Activation replaces the previous one. A device that registers with a code its
 * store's staff issued is bound at once (new, Unprovisioned or Pending Activation to Active).
 */
export const deviceMachine = stateMachine({
  name: "device",
  states: deviceStatuses,
  terminal: ["decommissioned"],
  moves: [
    { from: "unprovisioned", event: "generateActivationCode", to: "pending_activation" },
    { from: "pending_activation", event: "generateActivationCode", to: "pending_activation" },
    { from: "pending_activation", event: "activate", to: "active" },
    { from: "unprovisioned", event: "register", to: "active" },
    { from: "pending_activation", event: "register", to: "active" },
    { from: "active", event: "suspend", to: "suspended" },
    { from: "suspended", event: "resume", to: "active" },
    { from: "active", event: "decommission", to: "decommissioned" },
    { from: "suspended", event: "decommission", to: "decommissioned" },
  ],
});

export type DeviceEvent = (typeof deviceMachine.moves)[number]["event"];
