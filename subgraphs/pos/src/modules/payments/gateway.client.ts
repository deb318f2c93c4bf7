import { AppError, type ErrorCode, logger, signScheme1 } from "@pos-cloud/common";

/** The payment gateway and POS's own client partner credentials there (the platform's POS partner). */
export interface GatewayClientConfig {
  /** The gateway's base URL ({base_url}). */
  url: string;
  clientId: string;
  secret: string;
}

/** An intent as the gateway answers for it. */
export interface GatewayIntent {
  id: string;
  status: string;
  amount: number;
  failure_code?: string | null;
  failure_message?: string | null;
  payment_token?: { token: string };
}

/** A refund as the gateway answers for it: succeeded, pending (at the provider) or failed. */
export interface GatewayRefund {
  id: string;
  status: string;
  amount: number;
  failure_code?: string | null;
  failure_message?: string | null;
}

export type GatewayClient = ReturnType<typeof gatewayClient>;

/**
 * What each refusal of the gateway means to POS's caller (docs/decisions.md, "POS payment workflows"): the intent's
 * state refuses the move; its payment token is spent; an earlier call with the same key still runs; POS's own
 * credentials or rate were refused (POS payments are unavailable until then); or POS sent what the gateway cannot
 * take (POS's fault, not the caller's).
 */
const refusals: Record<string, { code: ErrorCode; meaning: string }> = {
  invalid_state: { code: "invalid_state", meaning: "the payment intent's state refuses this" },
  intent_expired: { code: "intent_expired", meaning: "the payment intent has expired" },
  invalid_token: { code: "invalid_state", meaning: "the payment intent's token has expired or was used" },
  idempotency_conflict: { code: "idempotency_conflict", meaning: "an earlier call for this payment is still running" },
  unauthorized: { code: "service_unavailable", meaning: "the payment gateway refused POS's credentials" },
  api_key_expired: { code: "service_unavailable", meaning: "POS's API key at the payment gateway has expired" },
  api_key_revoked: { code: "service_unavailable", meaning: "POS's API key at the payment gateway was revoked" },
  forbidden: { code: "service_unavailable", meaning: "the payment gateway does not let POS act for this store" },
  rate_limit_exceeded: { code: "service_unavailable", meaning: "the payment gateway is throttling POS; try again" },
};
const malformed = { code: "internal_error", meaning: "the payment gateway refused POS's request" } as const;

/** Codes of a call the gateway did not settle (no answer, or "try again"): it may be repeated under its key. */
const unsettled = new Set<ErrorCode>(["bad_gateway", "service_unavailable", "idempotency_conflict"]);

/** True when the gateway did not settle a call: its outcome is unknown or not yet decided, so it is asked again. */
export const gatewayMayRetry = (error: unknown): boolean => error instanceof AppError && unsettled.has(error.code);

function refusal(status: number, answer: Record<string, unknown>) {
  const details = { gateway_status: status, gateway_code: answer.code };
  if (status >= 500)
    return new AppError("bad_gateway", `the payment gateway failed: ${answer.message ?? status}`, details);
  const { code, meaning } = refusals[String(answer.code)] ?? malformed;
  if (code === "service_unavailable" || code === "internal_error")
    logger.error("the payment gateway refused POS", { ...details, message: answer.message });
  return new AppError(code, `${meaning}: ${answer.message ?? status}`, details);
}

/**
 * POS as a client partner of the payment gateway: HMAC-signed calls (scheme 1) to its `/v1` API, and payment-token
 * calls as a web view makes them, over HTTP in every wiring. Every write carries an Idempotency-Key derived from the
 * POS payment, so a retry (or a recovery) gets the gateway's first answer instead of a second intent.
 */
export function gatewayClient(initial?: GatewayClientConfig) {
  let config = initial;

  async function send(method: string, path: string, options: { body?: unknown; key?: string; signed: boolean }) {
    if (!config) throw new AppError("service_unavailable", "the payment gateway is not configured for POS");
    const body = options.body === undefined ? "" : JSON.stringify(options.body);
    const headers: Record<string, string> = body ? { "content-type": "application/json" } : {};
    if (options.key) headers["idempotency-key"] = options.key;
    if (options.signed) {
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = signScheme1(config.secret, method, path, timestamp, body);
      headers.authorization = `HMAC-SHA256 ${config.clientId}:${timestamp}:${signature}`;
    }
    let response: Response;
    try {
      response = await fetch(`${config.url.replace(/\/$/, "")}${path}`, {
        method,
        headers,
        body: body || undefined,
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      throw new AppError("bad_gateway", "the payment gateway did not answer", { cause: String(error) });
    }
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) throw refusal(response.status, answer);
    return answer;
  }

  return {
    /** Names the gateway and POS's partner there; the embedded platform learns them once its edge listens. */
    configure(next: GatewayClientConfig) {
      config = next;
    },
    createIntent: async (body: Record<string, unknown>, key: string) =>
      (await send("POST", "/v1/payment_intents", { body, key, signed: true })) as unknown as GatewayIntent,
    capture: async (id: string, amount: number, key: string) =>
      (await send("POST", `/v1/payment_intents/${encodeURIComponent(id)}/capture`, {
        body: { amount },
        key,
        signed: true,
      })) as unknown as GatewayIntent,
    /**
     * The key is the refund's reference too: two refunds of one intent with the same amount and reason in one second
     * would otherwise be signed identically, and the gateway refuses the second as a replay under another key.
     */
    refund: async (id: string, amount: number, reason: string, key: string) =>
      (await send("POST", `/v1/payment_intents/${encodeURIComponent(id)}/refund`, {
        body: { amount, reason, merchant_ref_id: key },
        key,
        signed: true,
      })) as unknown as GatewayRefund,
    /** Retrieve with the intent's payment token, as the web view follows it. */
    retrieve: async (id: string, token: string) =>
      (await send("GET", `/v1/payment_intents/${encodeURIComponent(id)}?payment_token=${encodeURIComponent(token)}`, {
        signed: false,
      })) as unknown as GatewayIntent,
    cancel: (id: string, token: string) =>
      send("POST", `/v1/payment_intents/${encodeURIComponent(id)}/cancel`, {
        body: { payment_token: token },
        signed: false,
      }),
  };
}
