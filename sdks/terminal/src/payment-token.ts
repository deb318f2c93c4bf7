import createClient from "openapi-fetch";
import { unwrap } from "./errors";
import { type FeedConnection, resilientFeed } from "./feeds";
import type { paths } from "./openapi.generated";
import {
  type FollowedIntentFragment,
  FollowPaymentIntentDocument,
  type FollowPaymentIntentSubscription,
} from "./operations/gateway.generated";

export type FollowedIntent = FollowedIntentFragment;

/** The states after which an intent never changes: its feed ends there. */
export const finalStatuses: ReadonlySet<string> = new Set(["succeeded", "failed", "cancelled"]);

/** How far an intent has come: the states before a result in their order, then every later one. */
const progress = (status: string) => {
  const before = ["requires_payment_method", "requires_action", "processing"].indexOf(status);
  return before < 0 ? 3 : before;
};

/** A message of an intent behind the state read (the read came after it) is old news. */
export const intentBehind = (message: FollowedIntent, current: FollowedIntent) =>
  progress(message.status) < progress(current.status);

export interface PaymentTokenOptions {
  baseUrl: string;
  paymentIntentId: string;
  /** The intent's payment token (5 minutes, one confirm): all the web view holds. */
  paymentToken: string;
  fetch?: typeof fetch;
  WebSocket?: unknown;
  backoff?: FeedConnection["backoff"];
}

export const wsUrl = (baseUrl: string) => `${baseUrl.replace(/^http/, "ws")}/graphql`;

/**
 * What a payment web view does with the payment token alone: read the intent, confirm it with a QR provider (the
 * QR to show), cancel it, and follow it to its end over graphql-ws.
 */
export function paymentTokenClient(options: PaymentTokenOptions) {
  const api = createClient<paths>({ baseUrl: options.baseUrl, fetch: options.fetch });
  const path = { id: options.paymentIntentId };
  const payment_token = options.paymentToken;
  const status = async () =>
    unwrap(await api.GET("/v1/payment_intents/{id}", { params: { path, query: { payment_token } } }));
  return {
    status,
    /** Asks the provider for the QR the customer scans; answers `qr_content` and when it expires. */
    confirm: async (provider: string, paymentMethodType: "qr_mpm" | "qr_cpm" = "qr_mpm") =>
      unwrap(
        await api.POST("/v1/payment_intents/{id}/confirm", {
          params: { path },
          body: { payment_token, payment_method_type: paymentMethodType, provider },
        }),
      ),
    cancel: async () =>
      unwrap(await api.POST("/v1/payment_intents/{id}/cancel", { params: { path }, body: { payment_token } })),
    /** The intent's state now, then each change, until a final state; reconnects after a drop. */
    follow: ({ signal }: { signal?: AbortSignal } = {}): AsyncGenerator<FollowedIntent> =>
      resilientFeed(
        {
          signal,
          url: wsUrl(options.baseUrl),
          WebSocket: options.WebSocket,
          authorization: async () => ({ payment_token }),
          backoff: options.backoff,
        },
        {
          current: status,
          fromCurrent: ({ id, status, amount, currency, failure_code }) => [
            { id, status, amount, currency, failure_code },
          ],
          subscription: { query: FollowPaymentIntentDocument.toString(), variables: path },
          fromMessage: (message: FollowPaymentIntentSubscription) => message.paymentIntentUpdated,
          covered: (current, message) => intentBehind(message.paymentIntentUpdated, current),
          ends: (intent) => finalStatuses.has(intent.status),
        },
      ),
  };
}
