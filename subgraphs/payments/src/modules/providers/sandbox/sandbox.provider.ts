import { createHmac } from "node:crypto";
import { AppError, invalidField, requireNoTransaction } from "@pos-cloud/common";
import { z } from "zod";
import {
  type PaymentProvider,
  type ProviderCredentials,
  type ProviderFollow,
  type ProviderPayment,
  readEach,
} from "../provider.contract";
import { sandboxNotifications } from "./sandbox-notifications.provider";
import { normalizeSandboxStatus, sandboxStatuses } from "./sandbox-statuses.provider";

const transactionSchema = z.object({
  transaction_id: z.string().min(1),
  status: z.enum(sandboxStatuses),
  amount: z.number().int(),
  currency: z.string(),
  refunded_amount: z.number().int(),
  decline_code: z.string().nullable(),
  qr_content: z.string(),
  expires_at: z.string(),
});
const refundSchema = z.object({
  refund_id: z.string().min(1),
  amount: z.number().int(),
  transaction: transactionSchema,
});
const listSchema = z.object({ data: z.array(transactionSchema) });
const errorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

type SandboxTransaction = z.infer<typeof transactionSchema>;

function toPayment(transaction: SandboxTransaction): ProviderPayment {
  return {
    provider_transaction_id: transaction.transaction_id,
    ...normalizeSandboxStatus(transaction.status, transaction.decline_code),
    amount: transaction.amount,
    currency: transaction.currency,
    refunded_amount: transaction.refunded_amount,
    expires_at: new Date(transaction.expires_at),
  };
}

export interface SandboxProviderOptions {
  /** `sandbox` (notifies) or `sandbox-poll` (the gateway polls). */
  code: string;
  follow: ProviderFollow;
  /** The sandbox's API address. */
  baseUrl: string;
  /** Where the sandbox posts notifications: the gateway's `POST /v1/webhooks/{code}`; unused when polling. */
  notifyUrl?: string;
  timeoutMs?: number;
  /** How old a notification may be. */
  notificationMaxAgeSeconds: number;
}

/**
 * Signed JSON calls to the sandbox's API: an answer parsed by `schema`, a refusal as the AppError it means, no answer
 * (or one the schema does not take) as `bad_gateway`.
 */
function sandboxClient(options: SandboxProviderOptions) {
  const unavailable = (reason: string, details: Record<string, unknown> = {}) =>
    new AppError("bad_gateway", `the ${options.code} provider is unavailable: ${reason}`, {
      provider: options.code,
      ...details,
    });

  async function call<T>(
    credentials: ProviderCredentials,
    method: "GET" | "POST",
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const raw = body === undefined ? "" : JSON.stringify(body);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac("sha256", credentials.api_secret)
      .update(`${timestamp}\n${method}\n${path}\n${raw}`)
      .digest("hex");
    let response: Response;
    requireNoTransaction(`sandbox provider ${method} ${path}`);
    try {
      response = await fetch(`${options.baseUrl}${path}`, {
        method,
        headers: {
          ...(raw ? { "content-type": "application/json" } : {}),
          authorization: `Bearer ${credentials.api_key}`,
          "x-sandbox-merchant-id": credentials.merchant_id,
          "x-sandbox-timestamp": timestamp,
          "x-sandbox-request-signature": signature,
          ...headers,
        },
        body: raw || undefined,
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      throw unavailable(error instanceof Error ? error.message : "no answer");
    }
    const answer: unknown = await response.json().catch(() => undefined);
    if (response.ok) {
      const parsed = schema.safeParse(answer);
      if (!parsed.success) throw unavailable("unexpected answer");
      return parsed.data;
    }
    throw refusal(response.status, errorSchema.safeParse(answer).data?.error);
  }

  function refusal(status: number, error: { code: string; message: string } | undefined): AppError {
    const details = { provider: options.code, provider_code: error?.code ?? null };
    if (status === 404) return new AppError("not_found", "the provider has no such payment", details);
    if (status === 409) return new AppError("invalid_state", error?.message ?? "the payment cannot change", details);
    if (status === 422 && error?.code === "refund_exceeds_amount")
      return invalidField("amount", "refundable_amount", `the refund exceeds what is left: ${error.message}`);
    if (status === 400) return new AppError("invalid_request", error?.message ?? "the provider refused", details);
    // 401 means the store's stored credentials are wrong: a configuration problem, not the caller's.
    return unavailable(`HTTP ${status}`, { provider_code: error?.code ?? null });
  }

  return call;
}

const paymentPath = (id: string) => `/v1/payments/${encodeURIComponent(id)}`;

/** The HTTP adapter for the sandbox QR provider: signed JSON calls, answers mapped onto the contract. */
export function sandboxProvider(options: SandboxProviderOptions): PaymentProvider {
  const call = sandboxClient(options);
  const read = async (id: string, credentials: ProviderCredentials) =>
    toPayment(await call(credentials, "GET", paymentPath(id), transactionSchema));
  return {
    name: options.code,
    follow: options.follow,
    notificationMaxAgeSeconds: options.notificationMaxAgeSeconds,
    notifications: options.follow.mode === "polling" ? undefined : sandboxNotifications(options.code),
    async createQr({ idempotency_key, ...request }, credentials) {
      const transaction = await call(
        credentials,
        "POST",
        "/v1/payments",
        transactionSchema,
        {
          ...request,
          ...(options.notifyUrl ? { notify_url: options.notifyUrl } : {}),
        },
        idempotency_key ? { "idempotency-key": idempotency_key } : {},
      );
      const { status } = toPayment(transaction);
      return {
        provider_transaction_id: transaction.transaction_id,
        qr_content: transaction.qr_content,
        expires_at: new Date(transaction.expires_at),
        status,
      };
    },
    getPaymentStatus: read,
    /** The sandbox's list of the window, and each known payment it placed elsewhere (read one by one). */
    async listTransactions({ from, to, known }, credentials) {
      const window = new URLSearchParams({ created_from: from.toISOString(), created_to: to.toISOString() });
      const listed = (await call(credentials, "GET", `/v1/payments?${window}`, listSchema)).data.map(toPayment);
      const seen = new Set(listed.map((payment) => payment.provider_transaction_id));
      const elsewhere = known.filter((id) => !seen.has(id));
      return [...listed, ...(await readEach(elsewhere, (id) => read(id, credentials)))];
    },
    cancelPayment: async (id, credentials) =>
      toPayment(await call(credentials, "POST", `${paymentPath(id)}/cancel`, transactionSchema)),
    async refundPayment(request, credentials) {
      const refund = await call(
        credentials,
        "POST",
        `${paymentPath(request.provider_transaction_id)}/refunds`,
        refundSchema,
        { amount: request.amount },
        { "idempotency-key": request.idempotency_key },
      );
      return { provider_refund_id: refund.refund_id, amount: refund.amount, payment: toPayment(refund.transaction) };
    },
  };
}
