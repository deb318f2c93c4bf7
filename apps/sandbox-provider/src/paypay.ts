import type { IncomingMessage } from "node:http";
import type { MerchantAccount } from "./auth";
import { SandboxError } from "./errors";
import { verifyOpaRequest } from "./paypay-auth";
import type { SandboxRefund, SandboxStatus, SandboxTransaction, TransactionBook } from "./transactions";

/**
 * The sandbox speaking PayPay's Open Payment API (Dynamic QR) over the same transactions as its own API: the paths,
 * bodies, result codes and `hmac OPA-Auth` signing of PayPay's reference, so the gateway's PayPay adapter (and PayPay's
 * own SDK) can run against it. The customer still pays on the sandbox's pay page, which the code's URL opens.
 */

/** PayPay's answer envelope: `resultInfo` always, `data` on success. */
interface PayPayReply {
  status: number;
  body: { resultInfo: { code: string; message: string; codeId: string }; data?: unknown };
}

/** PayPay's result codes the sandbox answers with (HTTP status, code, codeId, message). */
const results = {
  SUCCESS: [200, "SUCCESS", "08100001", "Success"],
  CREATED: [201, "SUCCESS", "08100001", "Created"],
  REQUEST_ACCEPTED: [202, "REQUEST_ACCEPTED", "08100001", "Request accepted"],
  INVALID_REQUEST_PARAMS: [400, "INVALID_REQUEST_PARAMS", "08100006", "Invalid request params"],
  UNAUTHORIZED: [401, "UNAUTHORIZED", "08100016", "Unauthorized request"],
  OP_OUT_OF_SCOPE: [401, "OP_OUT_OF_SCOPE", "08100023", "The operation is not permitted"],
  DUPLICATE_DYNAMIC_QR_REQUEST: [400, "DUPLICATE_DYNAMIC_QR_REQUEST", "01652073", "Duplicate Dynamic QR request error"],
  DYNAMIC_QR_PAYMENT_NOT_FOUND: [400, "DYNAMIC_QR_PAYMENT_NOT_FOUND", "01652075", "Dynamic QR payment not found"],
  ORDER_NOT_REVERSIBLE: [400, "ORDER_NOT_REVERSIBLE", "00200044", "Order cannot be reversed"],
  INVALID_REFUND_AMOUNT: [400, "INVALID_PARAMS", "00200015", "Invalid refund amount"],
  NOT_REFUNDABLE: [400, "UNACCEPTABLE_OP", "00200013", "Order cannot be refunded"],
  RESOURCE_NOT_FOUND: [404, "RESOURCE_NOT_FOUND", "00200001", "Order not found"],
  NO_SUCH_REFUND_ORDER: [404, "NO_SUCH_REFUND_ORDER", "00200018", "Refund not found"],
  INTERNAL_SERVER_ERROR: [500, "INTERNAL_SERVER_ERROR", "08101000", "Something went wrong on PayPay service side"],
  MAINTENANCE_MODE: [503, "MAINTENANCE_MODE", "08100999", "Sorry, we are down for scheduled maintenance"],
} as const satisfies Record<string, readonly [number, string, string, string]>;

type Result = keyof typeof results;

export function paypayReply(result: Result, data?: unknown): PayPayReply {
  const [status, code, codeId, message] = results[result];
  return { status, body: { resultInfo: { code, message, codeId }, ...(data === undefined ? {} : { data }) } };
}

/** A failure as PayPay reports it; the sandbox's own 5xx faults (`/sandbox/faults`) answer in this shape too. */
export const paypayFault = (status: number) =>
  paypayReply(status === 503 ? "MAINTENANCE_MODE" : "INTERNAL_SERVER_ERROR");

const paypayStatus: Record<SandboxStatus, string> = {
  pending: "CREATED",
  processing: "CREATED",
  paid: "COMPLETED",
  declined: "FAILED",
  expired: "EXPIRED",
  cancelled: "CANCELED",
  refunded: "REFUNDED",
};

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const money = (amount: number, currency: string) => ({ amount, currency });
const isPaid = (t: SandboxTransaction) => t.status === "paid" || t.status === "refunded";

function refundView(transaction: SandboxTransaction, refund: SandboxRefund, status: "CREATED" | "REFUNDED") {
  return {
    status,
    acceptedAt: seconds(refund.created_at),
    merchantRefundId: refund.idempotency_key,
    paymentId: transaction.transaction_id,
    amount: money(refund.amount, transaction.currency),
    requestedAt: seconds(refund.created_at),
    reason: null,
  };
}

function paymentDetails(transaction: SandboxTransaction) {
  return {
    paymentId: isPaid(transaction) ? transaction.transaction_id : null,
    status: paypayStatus[transaction.status],
    acceptedAt: isPaid(transaction) ? seconds(transaction.updated_at) : null,
    refunds: { data: transaction.refunds.map((refund) => refundView(transaction, refund, "REFUNDED")) },
    merchantPaymentId: transaction.reference,
    amount: money(transaction.amount, transaction.currency),
    requestedAt: seconds(transaction.created_at),
    orderDescription: null,
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is string => typeof value === "string" && /^[\w-]{1,64}$/.test(value);
const isMoney = (value: unknown): value is { amount: number; currency: string } =>
  isRecord(value) && Number.isSafeInteger(value.amount) && (value.amount as number) > 0 && value.currency === "JPY";

/** Merchant payment ids live beside the sandbox's own idempotency keys, apart from them. */
const paymentKey = (merchantPaymentId: string) => `paypay:${merchantPaymentId}`;

export interface PayPayRequest {
  method: string;
  path: string;
  raw: string;
  json: Record<string, unknown>;
  req: IncomingMessage;
}

/** Create a QR Code (`POST /v2/codes`): a merchant payment id is used once. */
function createCode(deps: PayPayDeps, account: MerchantAccount, body: Record<string, unknown>): PayPayReply {
  const { book } = deps;
  const nowSeconds = () => Math.floor(deps.now() / 1000);
  const { merchantPaymentId, amount, codeType, requestedAt, expiryDate, isAuthorization } = body;
  const lifetime = typeof expiryDate === "number" ? expiryDate - nowSeconds() : undefined;
  const valid =
    isId(merchantPaymentId) &&
    isMoney(amount) &&
    codeType === "ORDER_QR" &&
    Number.isSafeInteger(requestedAt) &&
    (isAuthorization === undefined || isAuthorization === false) &&
    (expiryDate === undefined ||
      (lifetime !== undefined && Number.isInteger(lifetime) && lifetime >= 1 && lifetime <= 86_400));
  if (!valid) return paypayReply("INVALID_REQUEST_PARAMS");
  if (book.findByKey(account.merchant_id, paymentKey(merchantPaymentId)))
    return paypayReply("DUPLICATE_DYNAMIC_QR_REQUEST");
  const input = {
    ...amount,
    reference: merchantPaymentId,
    mode: "mpm" as const,
    notify_url: null,
    expires_in_seconds: lifetime,
  };
  const transaction = book.create(account.merchant_id, input, paymentKey(merchantPaymentId));
  return paypayReply("CREATED", {
    codeId: `04-${transaction.transaction_id}`,
    url: `${deps.publicUrl()}/pay/${transaction.transaction_id}`,
    deeplink: `paypay://payment?link_key=${encodeURIComponent(`${deps.publicUrl()}/pay/${transaction.transaction_id}`)}`,
    expiryDate: seconds(transaction.expires_at),
    merchantPaymentId,
    amount,
    orderDescription: body.orderDescription ?? null,
    codeType,
    requestedAt,
    isAuthorization: false,
  });
}

export interface PayPayDeps {
  accounts: readonly MerchantAccount[];
  book: TransactionBook;
  publicUrl: () => string;
  now: () => number;
}

export function paypayApi(deps: PayPayDeps) {
  const { book } = deps;

  function cancel(account: MerchantAccount, merchantPaymentId: string): PayPayReply {
    const transaction = book.findByKey(account.merchant_id, paymentKey(merchantPaymentId));
    if (!transaction) return paypayReply("DYNAMIC_QR_PAYMENT_NOT_FOUND");
    try {
      book.cancel(account.merchant_id, transaction.transaction_id);
    } catch (error) {
      if (error instanceof SandboxError && error.status === 409) return paypayReply("ORDER_NOT_REVERSIBLE");
      throw error;
    }
    return paypayReply("REQUEST_ACCEPTED");
  }

  function refund(account: MerchantAccount, body: Record<string, unknown>): PayPayReply {
    const { merchantRefundId, paymentId, amount, requestedAt } = body;
    if (!isId(merchantRefundId) || !isId(paymentId) || !isMoney(amount) || !Number.isSafeInteger(requestedAt))
      return paypayReply("INVALID_REQUEST_PARAMS");
    let transaction: SandboxTransaction;
    try {
      transaction = book.get(account.merchant_id, paymentId);
    } catch {
      return paypayReply("RESOURCE_NOT_FOUND");
    }
    if (!isPaid(transaction)) return paypayReply("NOT_REFUNDABLE");
    try {
      const made = book.refund(account.merchant_id, paymentId, amount.amount, merchantRefundId);
      return paypayReply("CREATED", refundView(made.transaction, made.refund, "CREATED"));
    } catch (error) {
      if (error instanceof SandboxError && error.status === 422) return paypayReply("INVALID_REFUND_AMOUNT");
      if (error instanceof SandboxError && error.status === 409) return paypayReply("NOT_REFUNDABLE");
      throw error;
    }
  }

  function route(account: MerchantAccount, request: PayPayRequest, parts: string[]): PayPayReply | undefined {
    const [, , resource, second, third] = parts;
    if (request.method === "POST" && resource === "codes" && parts.length === 3)
      return createCode(deps, account, request.json);
    if (request.method === "GET" && resource === "codes" && second === "payments" && third && parts.length === 5) {
      const transaction = book.findByKey(account.merchant_id, paymentKey(decodeURIComponent(third)));
      return transaction
        ? paypayReply("SUCCESS", paymentDetails(transaction))
        : paypayReply("DYNAMIC_QR_PAYMENT_NOT_FOUND");
    }
    if (request.method === "DELETE" && resource === "payments" && second && parts.length === 4)
      return cancel(account, decodeURIComponent(second));
    if (request.method === "POST" && resource === "refunds" && parts.length === 3) return refund(account, request.json);
    if (request.method === "GET" && resource === "refunds" && second && parts.length === 4) {
      const found = book.findRefund(account.merchant_id, decodeURIComponent(second));
      return found
        ? paypayReply("SUCCESS", refundView(found.transaction, found.refund, "REFUNDED"))
        : paypayReply("NO_SUCH_REFUND_ORDER");
    }
    return undefined;
  }

  return {
    /** A signed `/v2/...` call; a body that is not a JSON object is PayPay's `INVALID_REQUEST_PARAMS`. */
    handle(request: PayPayRequest): PayPayReply | undefined {
      const signed = { method: request.method, path: request.path, body: request.raw, nowMs: deps.now() };
      const account = verifyOpaRequest(deps.accounts, request.req.headers, signed);
      if (typeof account === "string") return paypayReply(account);
      return route(account, request, new URL(request.path, "http://sandbox").pathname.split("/"));
    },
  };
}
