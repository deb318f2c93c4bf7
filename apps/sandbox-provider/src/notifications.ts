import type { SandboxEventType, SandboxTransaction } from "./transactions";

/**
 * The two notification bodies the gateway must accept (the spec shows two differing shapes). The sandbox sends the
 * flat one by default; `nested` stands in for providers that wrap the object in an event envelope.
 */
export type NotificationShape = "flat" | "nested";

const declineMessages = {
  card_declined: "the payment was declined",
  insufficient_funds: "the customer's balance is insufficient",
} as const;

export function notificationBody(
  shape: NotificationShape,
  eventId: string,
  type: SandboxEventType,
  transaction: SandboxTransaction,
  at: Date,
) {
  if (shape === "flat") {
    return {
      event_id: eventId,
      event_type: type,
      transaction_id: transaction.transaction_id,
      merchant_id: transaction.merchant_id,
      reference: transaction.reference,
      status: transaction.status,
      amount: transaction.amount,
      currency: transaction.currency,
      refunded_amount: transaction.refunded_amount,
      decline_code: transaction.decline_code,
      timestamp: at.toISOString(),
    };
  }
  const failure =
    transaction.status === "expired"
      ? { code: "expired", message: "the QR code expired before it was paid" }
      : transaction.decline_code
        ? { code: transaction.decline_code, message: declineMessages[transaction.decline_code] }
        : undefined;
  return {
    id: eventId,
    event: type,
    created: Math.floor(at.getTime() / 1000),
    data: {
      object: {
        id: transaction.transaction_id,
        status: nestedStatus[transaction.status],
        amount: transaction.amount,
        amount_refunded: transaction.refunded_amount,
        currency: transaction.currency.toLowerCase(),
        failure_code: failure?.code ?? null,
        failure_message: failure?.message ?? null,
        metadata: { reference: transaction.reference },
      },
    },
  };
}

const nestedStatus = {
  pending: "pending",
  processing: "processing",
  paid: "succeeded",
  declined: "failed",
  expired: "failed",
  cancelled: "canceled",
  refunded: "refunded",
} as const;
