import { checkAppUpdate } from "./app-update";
import { deviceApi, posCalls, type TerminalClientOptions } from "./client";
import { unwrap } from "./errors";
import { type FeedConnection, queryOver, resilientFeed } from "./feeds";
import {
  CurrentPaymentIntentDocument,
  type CurrentPaymentIntentQuery,
  FollowPaymentIntentDocument,
  type FollowPaymentIntentSubscription,
  StoreEventsDocument,
  type StoreEventsSubscription,
} from "./operations/gateway.generated";
import { type FollowedIntent, finalStatuses, intentBehind, paymentTokenClient, wsUrl } from "./payment-token";

export interface CreateTerminalClientOptions extends TerminalClientOptions {
  /** A WebSocket implementation where there is no global one (Node 20: `ws`). */
  WebSocket?: unknown;
  backoff?: FeedConnection["backoff"];
}

type Listed<K extends "orders" | "bills" | "payments"> = Awaited<ReturnType<ReturnType<typeof posCalls>[K]["list"]>>;

export interface FeedOptions {
  /** Ends the feed from outside, even while it waits for the next message. */
  signal?: AbortSignal;
}

export type StoreEvent = StoreEventsSubscription["storeEvents"];

/** What a store feed yields: at each (re)connection the store's open work as it is now, then its events. */
export type StoreFeedItem =
  | { kind: "current"; orders: Listed<"orders">; bills: Listed<"bills">; payments: Listed<"payments"> }
  | { kind: "event"; event: StoreEvent };

/** Whether `row` has every field `shape` has, with the same value (nested objects alike). */
const carries = (row: unknown, shape: unknown): boolean =>
  shape !== null && typeof shape === "object"
    ? row !== null &&
      typeof row === "object" &&
      Object.entries(shape).every(([name, value]) => carries((row as Record<string, unknown>)[name], value))
    : row === shape;

/**
 * Whether the store's open work as read already shows all an event says: each order, bill and payment it carries
 * listed with the same fields. An event about an intent, or about a row the read does not show, is news.
 */
function shownBy(current: Omit<Extract<StoreFeedItem, { kind: "current" }>, "kind">, event: StoreEvent) {
  const { order, bill, payment, payment_intent } = event;
  const parts = [
    [current.orders, order],
    [current.bills, bill],
    [current.payments, payment],
  ] as const;
  const carried = parts.filter(([, part]) => part);
  if (payment_intent || carried.length === 0) return false;
  return carried.every(([rows, part]) => (rows as { id: string }[]).some((row) => carries(row, part)));
}

/** A provisioned terminal's client: its token, typed REST calls, its feeds, the QR flow and app updates. */
export function createTerminalClient(options: CreateTerminalClientOptions) {
  const { api, tokens, send } = deviceApi(options);
  const pos = posCalls(api);
  const connection: FeedConnection = {
    url: wsUrl(options.baseUrl),
    WebSocket: options.WebSocket,
    authorization: async () => ({ authorization: `Bearer ${await tokens.token()}` }),
    refused: ({ authorization }) => tokens.refused(authorization?.replace(/^Bearer /, "") ?? ""),
    backoff: options.backoff,
  };
  return {
    ...pos,
    /** Every path of the platform's /openapi.json, typed, signed with the device token. */
    api,
    tokens,
    /** The intent now, then each change, until a final state; after a drop it reads the intent again. */
    followPaymentIntent: async function* (id: string, { signal }: FeedOptions = {}): AsyncGenerator<FollowedIntent> {
      const { storeId } = await tokens.identity();
      yield* resilientFeed(
        { ...connection, signal },
        {
          current: (client) =>
            queryOver<CurrentPaymentIntentQuery>(client, CurrentPaymentIntentDocument.toString(), {
              store_id: storeId,
              id,
            }),
          fromCurrent: (current) => [current.store.payment_intent],
          subscription: { query: FollowPaymentIntentDocument.toString(), variables: { id } },
          fromMessage: (message: FollowPaymentIntentSubscription) => message.paymentIntentUpdated,
          covered: (current, message) => intentBehind(message.paymentIntentUpdated, current.store.payment_intent),
          ends: (intent) => finalStatuses.has(intent.status),
        },
      );
    },
    /**
     * The store's events (the device's own store unless `storeId` names another); at each (re)connection first its
     * open orders, unpaid bills and pending payments.
     */
    storeEvents: async function* ({
      storeId,
      signal,
    }: FeedOptions & { storeId?: number } = {}): AsyncGenerator<StoreFeedItem> {
      const store_id = storeId ?? (await tokens.identity()).storeId;
      yield* resilientFeed(
        { ...connection, signal },
        {
          current: async () => {
            const [orders, bills, payments] = await Promise.all([
              pos.orders.list({ store_id, status: "open", limit: 100 }),
              pos.bills.list({ store_id, status: "pending", limit: 100 }),
              pos.payments.list({ store_id, status: "pending", limit: 100 }),
            ]);
            return { orders, bills, payments };
          },
          fromCurrent: (current): StoreFeedItem[] => [{ kind: "current", ...current }],
          subscription: { query: StoreEventsDocument.toString(), variables: { store_id } },
          fromMessage: (message: StoreEventsSubscription): StoreFeedItem => ({
            kind: "event",
            event: message.storeEvents,
          }),
          covered: (current, message) => shownBy(current, message.storeEvents),
        },
      );
    },
    /** Starts a QR payment of a bill; its `payment_token` opens the web view's part (`paymentTokenClient`). */
    startQrPayment: async (billId: string, amount: number, idempotencyKey?: string) =>
      pos.payments.create({ bill_id: billId, amount, payment_method: { type: "QR" } }, idempotencyKey),
    /** The web view's side of a QR payment, for the payment token a `startQrPayment` answered. */
    paymentView: (payment: { payment_intent_id: string | null; payment_token: string | null }) => {
      if (!payment.payment_intent_id || !payment.payment_token) throw new Error("the payment has no payment token");
      return paymentTokenClient({
        baseUrl: options.baseUrl,
        paymentIntentId: payment.payment_intent_id,
        paymentToken: payment.payment_token,
        fetch: options.fetch,
        WebSocket: options.WebSocket,
        backoff: options.backoff,
      });
    },
    /** An update of `appName` for this device, downloaded and checked against its SHA-256; null when none. */
    checkAppUpdate: async (appName: string, currentVersionCode: number) =>
      checkAppUpdate(api, send, await tokens.identity(), appName, currentVersionCode),
    /** Tells the platform how the install of `versionCode` went. */
    confirmInstall: async (versionCode: number, installStatus: "installed" | "failed") =>
      unwrap(
        await api.POST("/api/v1/app-updates/install-confirm", {
          body: {
            device_id: (await tokens.identity()).deviceId,
            version_code: versionCode,
            install_status: installStatus,
          },
        }),
      ),
  };
}

export type TerminalClient = ReturnType<typeof createTerminalClient>;
