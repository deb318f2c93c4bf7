import {
  AppError,
  type ErrorCode,
  invalidField,
  logger,
  publicPaymentIntent,
  publicRefund,
  requireNoTransaction,
  signScheme1,
  traceHeaders,
} from "@pos-cloud/common";
import { z } from "zod";
import type { Payment } from "../../generated/prisma/client";
import { storeInactive } from "../stores";
import type { GatewayCredential, GatewayCredentialService } from "./gateway-credential.service";

/** The payment gateway and POS's own client partner credentials there (the platform's POS partner). */
export interface GatewayClientConfig {
  /** The gateway's base URL ({base_url}). */
  url: string;
  clientId: string;
  secret: string;
}

/**
 * What POS reads of an intent the gateway answers with: fields of the public PaymentIntent (the event catalogue's
 * `publicPaymentIntent`, which REST returns), the failure only where the answer has it, and the token of a create.
 * The status stays a string: the workflows act on the ones they know and leave any other as they did.
 */
const gatewayIntent = publicPaymentIntent.pick({ id: true, amount: true }).extend({
  status: z.string(),
  failure_code: publicPaymentIntent.shape.failure_code.optional(),
  failure_message: publicPaymentIntent.shape.failure_message.optional(),
  payment_token: z.object({ token: z.string() }).optional(),
});
export type GatewayIntent = z.output<typeof gatewayIntent>;

/** A refund as the gateway answers for it: succeeded, pending (at the provider) or failed. */
const gatewayRefund = publicRefund.pick({ id: true, status: true, amount: true }).extend({
  failure_code: publicRefund.shape.failure_code.optional(),
  failure_message: publicRefund.shape.failure_message.optional(),
});
export type GatewayRefund = z.output<typeof gatewayRefund>;

/** The spec's error format, as far as POS reads a refusal; an answer without it is read as an empty refusal. */
const gatewayError = z
  .object({
    code: z.unknown(),
    message: z.string().optional().catch(undefined),
    details: z.object({ field: z.unknown(), constraint: z.unknown() }).partial().optional().catch(undefined),
  })
  .catch({ code: undefined });
type GatewayError = z.output<typeof gatewayError>;

/** The answer in the shape `schema` reads; one it does not is the gateway's fault, as a 5xx is. */
function answerOf<S extends z.ZodType>(schema: S, answer: unknown): z.output<S> {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  throw new AppError("bad_gateway", "the payment gateway answered in a shape POS does not know", {
    issues: z.prettifyError(parsed.error),
  });
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

function refusal(status: number, answer: GatewayError) {
  const details = { gateway_status: status, gateway_code: answer.code };
  if (status >= 500)
    return new AppError("bad_gateway", `the payment gateway failed: ${answer.message ?? status}`, details);
  // A store deactivated since the caller reached it (its terminal's token lives until the edge hears of it): the
  // caller's 409, as the POS answers it itself, not POS's fault.
  if (answer.details?.field === "merchant_store_id" && answer.details.constraint === "active_store")
    return storeInactive();
  // The tip added on a card's slip, above what the store allows at capture: the caller's to correct.
  if (answer.details?.field === "amount_to_capture" && answer.details.constraint === "tip_ceiling")
    return invalidField("added_tip_amount", "tip_ceiling", `the tip is above the store's ceiling: ${answer.message}`);
  const { code, meaning } = refusals[String(answer.code)] ?? malformed;
  if (code === "service_unavailable" || code === "internal_error")
    logger.error("the payment gateway refused POS", { ...details, message: answer.message });
  return new AppError(code, `${meaning}: ${answer.message ?? status}`, details);
}

type CapturedPayment = Pick<Payment, "total_amount" | "added_tip_amount">;

/**
 * A card payment's capture is for its total: the spec's `amount`, or `amount_to_capture` with a tip added on the slip
 * (the body a capture was first sent with stays the same for its key, so the recovery pass repeats it).
 */
const captureBody = (payment: CapturedPayment) =>
  payment.added_tip_amount > 0 ? { amount_to_capture: payment.total_amount } : { amount: payment.total_amount };

/** A gateway request's headers: its trace, its Idempotency-Key, and its HMAC signature when it is signed. */
function requestHeaders(
  method: string,
  path: string,
  body: string,
  key: string | undefined,
  credential: GatewayCredential | undefined,
) {
  const headers: Record<string, string> = {
    ...traceHeaders(),
    ...(body ? { "content-type": "application/json" } : {}),
  };
  if (key) headers["idempotency-key"] = key;
  if (credential) {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signScheme1(credential.secret, method, path, timestamp, body);
    headers.authorization = `HMAC-SHA256 ${credential.clientId}:${timestamp}:${signature}`;
  }
  return headers;
}

/**
 * POS as a client partner of the payment gateway: HMAC-signed calls (scheme 1) to its `/v1` API, and payment-token
 * calls as a web view makes them, over HTTP in every wiring. Every write carries an Idempotency-Key derived from the
 * POS payment, so a retry (or a recovery) gets the gateway's first answer instead of a second intent.
 */
export function gatewayClient(credentials: GatewayCredentialService, initialUrl?: string) {
  let url = initialUrl;

  async function attempt(
    method: string,
    path: string,
    options: { body?: unknown; key?: string; signed: boolean },
    credential: GatewayCredential | undefined,
  ) {
    const body = options.body === undefined ? "" : JSON.stringify(options.body);
    requireNoTransaction(`gateway ${method} ${path}`);
    try {
      return await fetch(`${url!.replace(/\/$/, "")}${path}`, {
        method,
        headers: requestHeaders(method, path, body, options.key, credential),
        body: body || undefined,
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      throw new AppError("bad_gateway", "the payment gateway did not answer", { cause: String(error) });
    }
  }

  async function send(method: string, path: string, options: { body?: unknown; key?: string; signed: boolean }) {
    const credential = options.signed ? await credentials.current() : undefined;
    if (!url || (options.signed && !credential))
      throw new AppError("service_unavailable", "the payment gateway is not configured for POS");
    let response = await attempt(method, path, options, credential);
    if (response.status === 401 && credential) {
      // Another process may have renewed the key since this one read it: the newest is tried once (a refused call
      // did nothing at the gateway, and the idempotency key covers the repeat).
      const newest = await credentials.fresh();
      if (newest && newest.secret !== credential.secret) response = await attempt(method, path, options, newest);
    }
    const answer: unknown = await response.json().catch(() => ({}));
    if (!response.ok) throw refusal(response.status, gatewayError.parse(answer));
    return answer;
  }

  return {
    /**
     * Names the gateway and the credential to sign with from now on, in every POS process sharing this database: the
     * embedded platform learns them once its edge listens, the platform's renewal job on each renewal.
     */
    async configure(next: GatewayClientConfig) {
      url = next.url;
      await credentials.save(next);
    },
    /** A process's start: its environment's credential, unless the database already has one (a renewal's, say). */
    async seed(next: GatewayClientConfig) {
      url = next.url;
      await credentials.save(next, { onlyIfNone: true });
    },
    createIntent: async (body: Record<string, unknown>, key: string) =>
      answerOf(gatewayIntent, await send("POST", "/v1/payment_intents", { body, key, signed: true })),
    capture: async (id: string, payment: CapturedPayment, key: string) =>
      answerOf(
        gatewayIntent,
        await send("POST", `/v1/payment_intents/${encodeURIComponent(id)}/capture`, {
          body: captureBody(payment),
          key,
          signed: true,
        }),
      ),
    /**
     * The key is the refund's reference too: two refunds of one intent with the same amount and reason in one second
     * would otherwise be signed identically, and the gateway refuses the second as a replay under another key.
     */
    refund: async (id: string, amount: number, reason: string, key: string) =>
      answerOf(
        gatewayRefund,
        await send("POST", `/v1/payment_intents/${encodeURIComponent(id)}/refund`, {
          body: { amount, reason, merchant_ref_id: key },
          key,
          signed: true,
        }),
      ),
    /** Retrieve with the intent's payment token, as the web view follows it. */
    retrieve: async (id: string, token: string) =>
      answerOf(
        gatewayIntent,
        await send("GET", `/v1/payment_intents/${encodeURIComponent(id)}?payment_token=${encodeURIComponent(token)}`, {
          signed: false,
        }),
      ),
    cancel: (id: string, token: string) =>
      send("POST", `/v1/payment_intents/${encodeURIComponent(id)}/cancel`, {
        body: { payment_token: token },
        signed: false,
      }),
  };
}
