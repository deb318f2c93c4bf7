import { timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";

/** How far a webhook's timestamp may be from now, in seconds, as Standard Webhooks has it. */
const TOLERANCE_SECONDS = 300;

/** An intent's terminal move, as a webhook's `data` carries it; failure fields on failed and cancelled events. */
export interface PaymentIntentEventData {
  id: string;
  status: string;
  amount: number;
  currency: string;
  store_id: number;
  merchant_ref_id: string;
  captured_at: string | null;
  failure_code?: string | null;
  failure_message?: string | null;
}

/** A partner webhook's body. */
export type PartnerWebhookEvent =
  | {
      id: string;
      type: "payment_intent.succeeded" | "payment_intent.failed" | "payment_intent.cancelled";
      created_at: string;
      data: PaymentIntentEventData;
    }
  | { id: string; type: "api_key.expiring"; created_at: string; data: Record<string, unknown> };

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

const headerOf = (headers: HeaderBag, name: string) => {
  const value = headers instanceof Headers ? headers.get(name) : headers[name];
  return Array.isArray(value) ? value[0] : (value ?? undefined);
};

/** The HMAC key of a `whsec_` secret: its base64 part, in either alphabet. */
const keyOf = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ""), "base64");

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * Verifies a webhook from the platform and returns its event, or throws `WebhookVerificationError`. Standard Webhooks
 * headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`), or the spec's `X-Gw-Event-ID`, `X-Gw-Timestamp`,
 * `X-Gw-Signature` carrying the same values: a `v1,` signature of `{id}.{timestamp}.{raw body}` by the key's
 * `whsec_` webhook secret (one of two during a rotation), a timestamp within 5 minutes of `now`, and a body whose
 * `id` is the signed one. `rawBody` is the bytes received, before any JSON parsing; header names are lower case.
 */
export function verifyWebhook(
  secret: string,
  headers: HeaderBag,
  rawBody: string | Uint8Array,
  now: () => number = Date.now,
): PartnerWebhookEvent {
  const id = headerOf(headers, "webhook-id") ?? headerOf(headers, "x-gw-event-id");
  const timestamp = headerOf(headers, "webhook-timestamp") ?? headerOf(headers, "x-gw-timestamp");
  const signatures = headerOf(headers, "webhook-signature") ?? headerOf(headers, "x-gw-signature");
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("missing webhook signature headers");
  const seconds = Number(timestamp);
  if (!(Math.abs(now() / 1000 - seconds) <= TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError("the webhook's timestamp is more than 5 minutes from now");
  }
  const body = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  const expected = new Webhook(keyOf(secret), { format: "raw" }).sign(id, new Date(seconds * 1000), body);
  if (!signatures.split(" ").some((signature) => same(signature, expected))) {
    throw new WebhookVerificationError("the webhook's signature does not match its body");
  }
  const event = JSON.parse(body) as PartnerWebhookEvent;
  if (event.id !== id) throw new WebhookVerificationError("the webhook's body is not the signed event");
  return event;
}
