import type { Identity } from "./session";

/** The merchant's own admins and the system operators, not a PSP's admins (`requireOwnMerchantAdmin`). */
const ownMerchantAdmin = (identity: Identity) => identity.role === "MERCHANT_ADMIN" || identity.role === "SYSTEM_OP";

/**
 * What the console offers a tier, following the server's rules (docs/decisions.md); the server refuses anyway, and
 * the console shows its refusal.
 */
export const may = {
  manageDevices: (identity: Identity) => identity.tier <= 4,
  editStore: (identity: Identity) => identity.tier <= 4,
  setTerminalLimit: (identity: Identity) => identity.tier <= 2,
  /** A store's payment config, as its status: merchant admins and above (`updateStore`). */
  setTipCeiling: (identity: Identity) => identity.tier <= 2,
  manageUsers: (identity: Identity) => identity.tier <= 4,
  manageAppVersions: (identity: Identity) => identity.tier <= 1,
  /** The accounting export is the merchant's own. */
  resendAccountingExport: ownMerchantAdmin,
  /** A QR difference: whoever sees it counted in the open alerts, merchant admins and above. */
  resolveQrDifference: (identity: Identity) => identity.tier <= 2,
  /** A day's card differences, as the accounting export. */
  resolveCardDifferences: ownMerchantAdmin,
  impersonate: (identity: Identity) => identity.tier <= 1 && !identity.impersonated_by,
};
