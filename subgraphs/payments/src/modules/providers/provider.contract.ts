import { AppError } from "@pos-cloud/common";

/**
 * The contract every payment provider adapter keeps (spec, behavior rule 8): a name, create QR, get payment status,
 * cancel payment, refund payment with an amount, how its outcomes are followed, and how its notifications are checked
 * and read. Credentials come with every call because they are per store. Expected failures are `AppError`s:
 * `bad_gateway` when the provider cannot be reached, times out, answers 5xx or refuses our credentials (the platform
 * retries, or its recovery pass finishes or undoes), `not_found`, `invalid_state`, and `invalid_request` (field
 * `amount`) for a refund above what is left.
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

/**
 * How the gateway learns of outcomes: the provider notifies `POST /v1/webhooks/{provider}`, the gateway polls, or
 * both (a notification moves the intent at once, polling catches what was never delivered).
 */
export type FollowMode = "webhook" | "polling" | "both";

export interface ProviderFollow {
  mode: FollowMode;
  /** Between two polls of one waiting payment (the poller backs off from it while nothing moves). */
  pollIntervalMs: number;
}

export const followsByPolling = (follow: ProviderFollow) => follow.mode !== "webhook";
export const followsByWebhook = (follow: ProviderFollow) => follow.mode !== "polling";

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
  /** Null when the provider's view of a payment does not say (PayPay's payment details). */
  expires_at: Date | null;
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

/** What the webhook processor works with, whatever the provider's body looked like. */
export interface ProviderNotification extends ProviderFailure {
  provider: string;
  /** The provider's event id: the key for ignoring duplicates. */
  event_id: string;
  event_type: string;
  provider_transaction_id: string;
  status: ProviderPaymentStatus;
  amount: number;
  currency: string;
  refunded_amount: number;
  occurred_at: Date;
}

/** A provider's inbound notifications, checked and read by its adapter (its header, its signature, its bodies). */
export interface ProviderNotifications {
  /** Whether the raw bytes, as received, carry the provider's signature under `secret`. */
  verify(rawBody: Buffer, headers: Record<string, unknown>, secret: string): boolean;
  /**
   * The platform's notification, or `not_a_payment` for a well-formed notification about something else. A body the
   * provider never sends is the sender's `invalid_request` (field `body`).
   */
  parse(rawBody: Buffer): ProviderNotification | "not_a_payment";
}

/**
 * Notifications a provider does not sign (PayPay's): each only names a payment, which the gateway then reads from the
 * provider's API as its poll does; the body itself moves nothing (docs/decisions/payments.md, "PayPay's
 * notifications only prompt a read").
 */
export interface ProviderPrompts {
  /**
   * The payment a notification names, or `not_a_payment` for a well-formed notification about something else; a body
   * the provider never sends is the sender's `invalid_request` (field `body`).
   */
  parse(rawBody: Buffer): { provider_transaction_id: string } | "not_a_payment";
}

/**
 * What the daily reconciliation asks of a provider (docs/decisions/payments.md, "QR sales reconciled with each
 * provider"): the payments it created in [from, to), and each of `known` (the ledger's payments of that window,
 * by provider transaction id) whatever time the provider gives them.
 */
export interface ReconciliationRange {
  from: Date;
  to: Date;
  known: readonly string[];
}

export interface PaymentProvider {
  /** The lowercase provider code (`provider_code` of a store's configuration). */
  readonly name: string;
  readonly follow: ProviderFollow;
  /** Notifications whose timestamp is further than this from now are refused. */
  readonly notificationMaxAgeSeconds: number;
  /** Absent for a provider followed only by polling. */
  readonly notifications?: ProviderNotifications;
  /** A provider whose notifications are unsigned has these instead of `notifications`. */
  readonly prompts?: ProviderPrompts;
  createQr(request: CreateQrRequest, credentials: ProviderCredentials): Promise<CreatedQr>;
  getPaymentStatus(providerTransactionId: string, credentials: ProviderCredentials): Promise<ProviderPayment>;
  cancelPayment(providerTransactionId: string, credentials: ProviderCredentials): Promise<ProviderPayment>;
  refundPayment(request: RefundRequest, credentials: ProviderCredentials): Promise<ProviderRefund>;
  /**
   * The provider's view of a day, for reconciliation: amounts, statuses and refunds. A provider with a transaction
   * list answers from it (and may name payments the ledger does not know); one without (PayPay) reads each known
   * payment. A known payment the provider has never heard of is absent.
   */
  listTransactions(range: ReconciliationRange, credentials: ProviderCredentials): Promise<ProviderPayment[]>;
}

/** One entry of the configured provider list (`PAYMENT_PROVIDERS`, docs/operations.md). */
export interface ProviderSetting {
  /** The provider code stores are configured with. */
  code: string;
  /** The adapter folder under `providers/` that speaks its protocol. */
  adapter: string;
  /** The adapter's own settings, checked by the adapter. */
  options?: Record<string, unknown>;
}

/** What the running platform knows about its surroundings: its own address and the sandbox it runs, if any. */
export interface ProviderContext {
  /** The edge's public address: notifications go to `<gatewayUrl>/v1/webhooks/<code>`. */
  gatewayUrl: string;
  sandbox?: { baseUrl: string; webhookSecret: string };
}

/** A configured provider, with the secret its notifications are signed with when it sends any. */
export interface BuiltProvider {
  provider: PaymentProvider;
  webhookSecret?: string;
}

/** What an adapter folder's `index.ts` exports as `adapter`: one provider per setting. */
export interface ProviderAdapter {
  build(setting: Required<ProviderSetting>, context: ProviderContext): BuiltProvider;
}

/** How many payments an adapter without a list reads at once for `listTransactions`. */
const READS_AT_ONCE = 4;

/**
 * Each of `ids` read by `read`, a few at a time, in order; one the provider does not know (`not_found`) is left out.
 * For `listTransactions` of a provider whose API reads one payment at a time.
 */
export async function readEach(
  ids: readonly string[],
  read: (id: string) => Promise<ProviderPayment>,
): Promise<ProviderPayment[]> {
  const found: (ProviderPayment | undefined)[] = [];
  for (let start = 0; start < ids.length; start += READS_AT_ONCE) {
    const batch = ids.slice(start, start + READS_AT_ONCE).map((id) =>
      read(id).catch((error: unknown) => {
        if (error instanceof AppError && error.code === "not_found") return undefined;
        throw error;
      }),
    );
    found.push(...(await Promise.all(batch)));
  }
  return found.filter((payment) => payment !== undefined);
}
