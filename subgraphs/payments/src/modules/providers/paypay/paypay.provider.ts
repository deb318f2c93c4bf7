import { AppError, invalidField } from "@pos-cloud/common";
import { z } from "zod";
import {
  type CreateQrRequest,
  type PaymentProvider,
  type ProviderCredentials,
  type ProviderFollow,
  type ProviderPayment,
  type ProviderPaymentStatus,
  readEach,
} from "../provider.contract";
import { type PayPayClientOptions, payPayClient } from "./paypay.client";
import { payPayPrompts } from "./paypay-prompts.provider";

const money = z.object({ amount: z.number().int(), currency: z.string() });

/** `data` of Create a QR Code (`POST /v2/codes`). */
const codeSchema = z.object({
  codeId: z.string(),
  url: z.string(),
  expiryDate: z.number().int(),
  merchantPaymentId: z.string(),
});

/** `data` of Get payment details (`GET /v2/codes/payments/{merchantPaymentId}`). */
const detailsSchema = z.object({
  paymentId: z.string().nullish(),
  status: z.enum(["CREATED", "AUTHORIZED", "COMPLETED", "FAILED", "EXPIRED", "CANCELED", "REVERTED", "REFUNDED"]),
  merchantPaymentId: z.string(),
  amount: money,
  refunds: z.object({ data: z.array(z.object({ status: z.string(), amount: money })) }).nullish(),
});
type PaymentDetails = z.infer<typeof detailsSchema>;

/** `data` of Refund a payment (`POST /v2/refunds`) and Get refund details (`GET /v2/refunds/{merchantRefundId}`). */
const refundSchema = z.object({ status: z.string(), merchantRefundId: z.string(), amount: money });

const statuses: Record<PaymentDetails["status"], ProviderPaymentStatus> = {
  CREATED: "pending",
  AUTHORIZED: "processing",
  COMPLETED: "succeeded",
  FAILED: "failed",
  EXPIRED: "failed",
  CANCELED: "cancelled",
  REVERTED: "cancelled",
  REFUNDED: "refunded",
};

const failures: Partial<Record<PaymentDetails["status"], [string, string]>> = {
  FAILED: ["declined", "PayPay declined the payment"],
  EXPIRED: ["expired", "the QR code expired before it was paid"],
};

/** A refund PayPay did not fail is money on its way back (it settles `CREATED` refunds on its own). */
const refundedAmount = (details: PaymentDetails) =>
  (details.refunds?.data ?? []).filter((r) => r.status !== "FAILED").reduce((sum, r) => sum + r.amount.amount, 0);

function toPayment(details: PaymentDetails): ProviderPayment {
  const [failure_code, failure_message] = failures[details.status] ?? [null, null];
  return {
    provider_transaction_id: details.merchantPaymentId,
    status: statuses[details.status],
    amount: details.amount.amount,
    currency: details.amount.currency,
    refunded_amount: refundedAmount(details),
    expires_at: null,
    failure_code,
    failure_message,
  };
}

export interface PayPayProviderOptions extends PayPayClientOptions {
  follow: ProviderFollow;
  notificationMaxAgeSeconds: number;
}

const paymentPath = (id: string) => `/v2/codes/payments/${encodeURIComponent(id)}`;
const epochSeconds = () => Math.floor(Date.now() / 1000);

/** The Create a QR Code body: PayPay's dynamic QR is presented by the merchant, in yen. */
function codeRequest(request: CreateQrRequest, merchantPaymentId: string) {
  if (request.mode !== "mpm")
    throw invalidField(
      "payment_method_type",
      "provider_supports",
      "PayPay's dynamic QR is scanned by the customer (qr_mpm)",
    );
  if (request.currency !== "JPY") throw invalidField("currency", "provider_supports", "PayPay takes JPY only");
  const now = epochSeconds();
  return {
    merchantPaymentId,
    amount: { amount: request.amount, currency: request.currency },
    codeType: "ORDER_QR",
    requestedAt: now,
    isAuthorization: false,
    ...(request.expires_in_seconds ? { expiryDate: now + request.expires_in_seconds } : {}),
  };
}

/**
 * PayPay's Open Payment API, Dynamic QR. The platform's provider transaction id is the merchant payment id the adapter
 * chose (the attempt's idempotency key), since every call but the refund names the payment by it.
 */
export function payPayProvider(options: PayPayProviderOptions): PaymentProvider {
  const call = payPayClient(options);
  const details = async (id: string, credentials: ProviderCredentials) =>
    (await call(credentials, "GET", paymentPath(id), detailsSchema)).data;

  return {
    name: options.code,
    follow: options.follow,
    notificationMaxAgeSeconds: options.notificationMaxAgeSeconds,
    prompts: payPayPrompts,
    async createQr(request, credentials) {
      const merchantPaymentId = request.idempotency_key ?? request.reference;
      const created = await call(
        credentials,
        "POST",
        "/v2/codes",
        codeSchema,
        codeRequest(request, merchantPaymentId),
      ).catch((error: unknown) => {
        // A repeated key: the code exists. PayPay does not give its URL again; the payment's status is what a
        // retrying caller (the recovery pass) needs (docs/decisions/gateway.md, "PayPay as a provider").
        if (error instanceof AppError && error.details?.provider_code === "DUPLICATE_DYNAMIC_QR_REQUEST")
          return undefined;
        throw error;
      });
      if (!created) {
        const payment = toPayment(await details(merchantPaymentId, credentials));
        return {
          provider_transaction_id: merchantPaymentId,
          qr_content: "",
          expires_at: new Date(),
          status: payment.status,
        };
      }
      return {
        provider_transaction_id: merchantPaymentId,
        qr_content: created.data.url,
        expires_at: new Date(created.data.expiryDate * 1000),
        status: "pending",
      };
    },
    getPaymentStatus: async (id, credentials) => toPayment(await details(id, credentials)),
    /**
     * PayPay's API has no transaction list: each payment the ledger knows is read by its payment details
     * (docs/decisions/payments.md, "QR sales reconciled with each provider").
     */
    listTransactions: ({ known }, credentials) =>
      readEach(known, async (id) => toPayment(await details(id, credentials))),
    /** Only a payment not yet made is cancelled; a paid one is the platform's to refund, never reversed here. */
    async cancelPayment(id, credentials) {
      const before = toPayment(await details(id, credentials));
      if (before.status === "succeeded" || before.status === "refunded")
        throw new AppError("invalid_state", "the payment was made; refund it instead", { provider: options.code });
      if (before.status !== "pending" && before.status !== "processing") return before;
      await call(credentials, "DELETE", `/v2/payments/${encodeURIComponent(id)}`, z.unknown());
      return toPayment(await details(id, credentials));
    },
    async refundPayment(request, credentials) {
      const paid = await details(request.provider_transaction_id, credentials);
      if (!paid.paymentId) throw new AppError("invalid_state", "the payment was not made", { provider: options.code });
      const refund = await call(credentials, "POST", "/v2/refunds", refundSchema, {
        merchantRefundId: request.idempotency_key,
        paymentId: paid.paymentId,
        amount: { amount: request.amount, currency: paid.amount.currency },
        requestedAt: epochSeconds(),
      });
      const payment = toPayment(await details(request.provider_transaction_id, credentials));
      return { provider_refund_id: refund.data.merchantRefundId, amount: refund.data.amount.amount, payment };
    },
  };
}
