/**
 * The contract every payment provider adapter keeps (spec, behavior rule 8): a name, create QR, get payment status,
 * cancel payment, refund payment with an amount. Credentials come with every call because they are per store.
 * Expected failures are `AppError`s: `bad_gateway` when the provider cannot be reached or refuses our credentials,
 * `not_found`, `invalid_state`, and `invalid_request` (field `amount`) for a refund above what is left.
 */

/**
 * The platform's statuses; each adapter maps its provider's vocabulary onto them. `processing`: the customer approved
 * the payment and the provider is settling it (the outcome follows).
 */
export type ProviderPaymentStatus = "pending" | "processing" | "succeeded" | "failed" | "cancelled" | "refunded";

/** The spec's credentials object of a store's provider configuration. */
export interface ProviderCredentials {
  merchant_id: string;
  api_key: string;
  api_secret: string;
}

/** `qr_mpm` → `mpm` (the customer scans the merchant's code), `qr_cpm` → `cpm`. */
export type QrMode = "mpm" | "cpm";

/** How the gateway learns of outcomes: the provider notifies `POST /v1/webhooks/{provider}`, or the gateway polls. */
export type OutcomeDelivery = "webhook" | "polling";

/**
 * How far a notification's own timestamp may be from the gateway's clock (either way) unless a provider says
 * otherwise: long enough for a provider's retries (the sandbox's end after about 3 minutes), short enough that a
 * copied signed body cannot be replayed days later (docs/decisions.md).
 */
export const DEFAULT_NOTIFICATION_MAX_AGE_SECONDS = 600;

export interface CreateQrRequest {
  amount: number;
  currency: string;
  /** The gateway's reference for the payment: the intent id. */
  reference: string;
  mode: QrMode;
  /** How long the code can be paid; the provider's default when absent. Keep it within the intent's expiry. */
  expires_in_seconds?: number;
  /** The same key returns the QR made the first time instead of making another, so a retried create is safe. */
  idempotency_key?: string;
}

export interface CreatedQr {
  provider_transaction_id: string;
  qr_content: string;
  expires_at: Date;
  status: ProviderPaymentStatus;
}

export interface ProviderFailure {
  failure_code: string | null;
  failure_message: string | null;
}

export interface ProviderPayment extends ProviderFailure {
  provider_transaction_id: string;
  status: ProviderPaymentStatus;
  amount: number;
  currency: string;
  /** Sum of refunds so far; a partly refunded payment stays `succeeded`. */
  refunded_amount: number;
  expires_at: Date;
}

export interface RefundRequest {
  provider_transaction_id: string;
  amount: number;
  /** The same key returns the first refund instead of refunding twice, so a retried call is safe. */
  idempotency_key: string;
}

export interface ProviderRefund {
  provider_refund_id: string;
  amount: number;
  /** The payment after the refund. */
  payment: ProviderPayment;
}

export interface PaymentProvider {
  /** The lowercase provider code (`provider_code` of a store's configuration). */
  readonly name: string;
  readonly delivery: OutcomeDelivery;
  /** Notifications whose timestamp is further than this from now are refused. */
  readonly notificationMaxAgeSeconds: number;
  createQr(request: CreateQrRequest, credentials: ProviderCredentials): Promise<CreatedQr>;
  getPaymentStatus(providerTransactionId: string, credentials: ProviderCredentials): Promise<ProviderPayment>;
  cancelPayment(providerTransactionId: string, credentials: ProviderCredentials): Promise<ProviderPayment>;
  refundPayment(request: RefundRequest, credentials: ProviderCredentials): Promise<ProviderRefund>;
}
