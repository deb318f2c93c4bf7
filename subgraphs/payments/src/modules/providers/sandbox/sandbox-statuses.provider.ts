import type { ProviderFailure, ProviderPaymentStatus } from "../provider.contract";

/** The sandbox's own statuses and decline codes (its API, not ours). */
export const sandboxStatuses = [
  "pending",
  "processing",
  "paid",
  "declined",
  "cancelled",
  "expired",
  "refunded",
] as const;
export type SandboxStatus = (typeof sandboxStatuses)[number];

const failureMessages: Record<string, string> = {
  card_declined: "the provider declined the payment",
  insufficient_funds: "the customer's balance is insufficient",
  expired: "the QR code expired before it was paid",
};

/** Maps the sandbox's vocabulary; an expired QR is a failed payment (`expired`), not a cancelled one. */
export function normalizeSandboxStatus(
  status: SandboxStatus,
  declineCode: string | null,
): ProviderFailure & { status: ProviderPaymentStatus } {
  const failure = status === "expired" ? "expired" : status === "declined" ? (declineCode ?? "declined") : null;
  const normalized = {
    pending: "pending",
    processing: "processing",
    paid: "succeeded",
    declined: "failed",
    expired: "failed",
    cancelled: "cancelled",
    refunded: "refunded",
  } as const;
  return {
    status: normalized[status],
    failure_code: failure,
    failure_message: failure ? (failureMessages[failure] ?? "the provider declined the payment") : null,
  };
}
