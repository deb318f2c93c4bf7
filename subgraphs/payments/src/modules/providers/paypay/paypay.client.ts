import { randomUUID } from "node:crypto";
import { AppError, invalidField, requireNoTransaction } from "@pos-cloud/common";
import { z } from "zod";
import type { ProviderCredentials } from "../provider.contract";
import { opaAuthorization } from "./opa-auth.client";

/** PayPay's answer envelope; `data` is the operation's own. */
const envelopeSchema = z.object({
  resultInfo: z.object({ code: z.string(), message: z.string().nullish(), codeId: z.string().nullish() }),
  data: z.unknown().optional(),
});

/** Result codes (besides success) that the adapter turns into the platform's errors; the rest per HTTP status. */
const refusals: Record<string, (details: Record<string, unknown>) => AppError> = {
  DYNAMIC_QR_PAYMENT_NOT_FOUND: (details) => new AppError("not_found", "PayPay has no such payment", details),
  RESOURCE_NOT_FOUND: (details) => new AppError("not_found", "PayPay has no such payment", details),
  NO_SUCH_REFUND_ORDER: (details) => new AppError("not_found", "PayPay has no such refund", details),
  ORDER_NOT_REVERSIBLE: (details) => new AppError("invalid_state", "PayPay can no longer cancel the payment", details),
  UNACCEPTABLE_OP: (details) => new AppError("invalid_state", "PayPay refuses the operation now", details),
};

export interface PayPayClientOptions {
  code: string;
  baseUrl: string;
  timeoutMs: number;
}

export type PayPayCall = <T>(
  credentials: ProviderCredentials,
  method: "GET" | "POST" | "DELETE",
  path: string,
  schema: z.ZodType<T>,
  body?: Record<string, unknown>,
) => Promise<{ code: string; data: T }>;

/**
 * Signed calls to PayPay's Open Payment API. No answer, a timeout, a 5xx (PayPay: the outcome is unknown, ask again),
 * 429, or a refusal of our credentials (401: the store's configuration) is `bad_gateway`, which the platform retries or
 * its recovery pass resolves; PayPay's known refusals are the platform's `not_found`, `invalid_state` or `invalid_request`.
 */
export function payPayClient(options: PayPayClientOptions): PayPayCall {
  const unavailable = (reason: string, details: Record<string, unknown> = {}) =>
    new AppError("bad_gateway", `the ${options.code} provider is unavailable: ${reason}`, {
      provider: options.code,
      ...details,
    });

  function refusal(status: number, code: string, codeId: string | null | undefined): AppError {
    const details = { provider: options.code, provider_code: code, provider_code_id: codeId ?? null };
    if (status >= 500 || status === 429 || status === 401) return unavailable(`HTTP ${status} ${code}`, details);
    if (code === "INVALID_PARAMS" && codeId === "00200015")
      return invalidField("amount", "refundable_amount", "the refund exceeds what PayPay can still refund");
    return refusals[code]?.(details) ?? new AppError("invalid_request", `PayPay refused the request: ${code}`, details);
  }

  return async (credentials, method, path, schema, body) => {
    const raw = body === undefined ? "" : JSON.stringify(body);
    const stamp = { nonce: randomUUID(), epoch: Math.floor(Date.now() / 1000) };
    let response: Response;
    requireNoTransaction(`paypay ${method} ${path}`);
    try {
      response = await fetch(`${options.baseUrl}${path}`, {
        method,
        headers: {
          authorization: opaAuthorization(credentials, { method, path, body: raw }, stamp),
          ...(credentials.merchant_id ? { "x-assume-merchant": credentials.merchant_id } : {}),
          ...(raw ? { "content-type": "application/json" } : {}),
        },
        body: raw || undefined,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      throw unavailable(error instanceof Error ? error.message : "no answer");
    }
    const envelope = envelopeSchema.safeParse(await response.json().catch(() => undefined));
    if (!envelope.success) throw unavailable(`HTTP ${response.status} without PayPay's answer`);
    const { code, codeId } = envelope.data.resultInfo;
    if (!response.ok) throw refusal(response.status, code, codeId);
    const data = schema.safeParse(envelope.data.data);
    if (!data.success) throw unavailable(`unexpected ${code} answer`);
    return { code, data: data.data };
  };
}
