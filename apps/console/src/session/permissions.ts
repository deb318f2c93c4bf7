import type { Identity } from "./session";

/**
 * What the console offers a tier, following the server's rules (docs/decisions.md); the server refuses anyway, and
 * the console shows its refusal.
 */
export const may = {
  manageDevices: (identity: Identity) => identity.tier <= 4,
  editStore: (identity: Identity) => identity.tier <= 4,
  setTerminalLimit: (identity: Identity) => identity.tier <= 2,
  manageUsers: (identity: Identity) => identity.tier <= 4,
  manageAppVersions: (identity: Identity) => identity.tier <= 1,
  /** The accounting export is the merchant's own: its admins and the system operators (not a PSP's admins). */
  resendAccountingExport: (identity: Identity) => identity.role === "MERCHANT_ADMIN" || identity.role === "SYSTEM_OP",
  impersonate: (identity: Identity) => identity.tier <= 1 && !identity.impersonated_by,
};
