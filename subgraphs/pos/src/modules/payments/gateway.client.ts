import { AppError, signScheme1 } from "@pos-cloud/common";

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
    if (!response.ok) {
      throw new AppError(
        response.status >= 500 ? "bad_gateway" : "invalid_state",
        `the payment gateway refused: ${answer.message ?? response.status}`,
        { gateway_status: response.status, gateway_code: answer.code },
      );
    }
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
