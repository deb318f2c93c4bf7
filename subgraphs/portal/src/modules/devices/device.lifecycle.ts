import { AppError } from "@pos-cloud/common";

export const deviceStatuses = ["unprovisioned", "pending_activation", "active", "suspended", "decommissioned"] as const;
export type DeviceStatus = (typeof deviceStatuses)[number];

/**
 * The spec's device lifecycle, plus our moves out of Suspended (resume to Active, or decommission). A new
 * activation code while Pending Activation replaces the previous one. A device that registers with a code its
 * store's staff issued is bound at once (new, Unprovisioned or Pending Activation to Active). Every other move is
 * refused.
 */
export const deviceMoves = {
  generateActivationCode: { from: ["unprovisioned", "pending_activation"], to: "pending_activation" },
  activate: { from: ["pending_activation"], to: "active" },
  register: { from: ["unprovisioned", "pending_activation"], to: "active" },
  suspend: { from: ["active"], to: "suspended" },
  resume: { from: ["suspended"], to: "active" },
  decommission: { from: ["active", "suspended"], to: "decommissioned" },
} as const satisfies Record<string, { from: readonly DeviceStatus[]; to: DeviceStatus }>;

export type DeviceMove = keyof typeof deviceMoves;

export function requireMove(move: DeviceMove, status: string) {
  const { from } = deviceMoves[move];
  if (!(from as readonly string[]).includes(status)) {
    throw new AppError("invalid_state", `a ${status} device cannot ${move}`, {
      status,
      allowed_from: from,
    });
  }
  return deviceMoves[move];
}
