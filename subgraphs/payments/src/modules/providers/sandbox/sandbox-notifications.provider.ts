import { createHmac, timingSafeEqual } from "node:crypto";
import { invalidField } from "@pos-cloud/common";
import { z } from "zod";
import type { ProviderNotification, ProviderNotifications } from "../provider.contract";
import { normalizeSandboxStatus, sandboxStatuses } from "./sandbox-statuses.provider";

/** `sandbox` → `x-sandbox-signature`, `sandbox-poll` → `x-sandbox-poll-signature` (Node lowercases header names). */
export function webhookSignatureHeader(providerCode: string): string {
  return `x-${providerCode.toLowerCase().replace(/_/g, "-")}-signature`;
}

/**
 * Checks `X-<Provider>-Signature`: the hex HMAC-SHA256 of the raw body (the bytes as received, before any parsing)
 * under the provider's webhook secret, compared in constant time.
 */
export function verifyWebhookSignature(rawBody: Buffer | string, signature: unknown, webhookSecret: string): boolean {
  if (typeof signature !== "string" || !/^[0-9a-f]{64}$/i.test(signature.trim())) return false;
  const expected = createHmac("sha256", webhookSecret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(signature.trim(), "hex"), expected);
}

/** Body shape A, flat (the sandbox's own): one object per event, the transaction's fields at the top. */
export interface FlatProviderNotification {
  event_id: string;
  event_type: string;
  transaction_id: string;
  status: (typeof sandboxStatuses)[number];
  amount: number;
  currency: string;
  refunded_amount?: number;
  decline_code?: string | null;
  /** ISO 8601. */
  timestamp: string;
}

/** Body shape B, nested: an event envelope around the payment object, Unix-second times, lowercase currency. */
export interface NestedProviderNotification {
  id: string;
  event: string;
  /** Unix seconds. */
  created: number;
  data: {
    object: {
      id: string;
      status: "pending" | "processing" | "succeeded" | "failed" | "canceled" | "cancelled" | "refunded";
      amount: number;
      currency: string;
      amount_refunded?: number;
      failure_code?: string | null;
      failure_message?: string | null;
    };
  };
}

const amount = z.number().int().nonnegative();
const flatSchema = z.object({
  event_id: z.string().min(1),
  event_type: z.string().min(1),
  transaction_id: z.string().min(1),
  status: z.enum(sandboxStatuses),
  amount,
  currency: z.string().regex(/^[A-Za-z]{3}$/),
  refunded_amount: amount.optional(),
  decline_code: z.string().nullable().optional(),
  timestamp: z.iso.datetime({ offset: true }),
}) satisfies z.ZodType<FlatProviderNotification>;

const nestedSchema = z.object({
  id: z.string().min(1),
  event: z.string().min(1),
  created: z.number().int().positive(),
  data: z.object({
    object: z.object({
      id: z.string().min(1),
      status: z.enum(["pending", "processing", "succeeded", "failed", "canceled", "cancelled", "refunded"]),
      amount,
      currency: z.string().regex(/^[A-Za-z]{3}$/),
      amount_refunded: amount.optional(),
      failure_code: z.string().nullable().optional(),
      failure_message: z.string().nullable().optional(),
    }),
  }),
}) satisfies z.ZodType<NestedProviderNotification>;

const nestedStatus = {
  pending: "pending",
  processing: "processing",
  succeeded: "succeeded",
  failed: "failed",
  canceled: "cancelled",
  cancelled: "cancelled",
  refunded: "refunded",
} as const;

function fromFlat(provider: string, body: FlatProviderNotification): ProviderNotification {
  return {
    provider,
    event_id: body.event_id,
    event_type: body.event_type,
    provider_transaction_id: body.transaction_id,
    ...normalizeSandboxStatus(body.status, body.decline_code ?? null),
    amount: body.amount,
    currency: body.currency.toUpperCase(),
    refunded_amount: body.refunded_amount ?? 0,
    occurred_at: new Date(body.timestamp),
  };
}

function fromNested(provider: string, body: NestedProviderNotification): ProviderNotification {
  const payment = body.data.object;
  const status = nestedStatus[payment.status];
  const failureCode = status === "failed" ? (payment.failure_code ?? "declined") : null;
  return {
    provider,
    event_id: body.id,
    event_type: body.event,
    provider_transaction_id: payment.id,
    status,
    failure_code: failureCode,
    failure_message: failureCode ? (payment.failure_message ?? "the provider declined the payment") : null,
    amount: payment.amount,
    currency: payment.currency.toUpperCase(),
    refunded_amount: payment.amount_refunded ?? 0,
    occurred_at: new Date(body.created * 1000),
  };
}

/**
 * Reads an inbound sandbox notification in either shape (call it after the signature checked out). A body that is
 * neither is the sender's `invalid_request`; nothing has been changed by then.
 */
export function parseSandboxNotification(provider: string, rawBody: Buffer | string): ProviderNotification {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString());
  } catch {
    throw invalidField("body", "json", "the notification is not JSON");
  }
  const nested = nestedSchema.safeParse(body);
  if (nested.success) return fromNested(provider, nested.data);
  const flat = flatSchema.safeParse(body);
  if (flat.success) return fromFlat(provider, flat.data);
  throw invalidField("body", "notification_shape", "the notification has neither known shape");
}

/** The sandbox's notifications, for the configuration `code`: its signature header and both body shapes. */
export function sandboxNotifications(code: string): ProviderNotifications {
  return {
    verify: (rawBody, headers, secret) =>
      verifyWebhookSignature(rawBody, headers[webhookSignatureHeader(code)], secret),
    parse(rawBody) {
      const notification = parseSandboxNotification(code, rawBody);
      return notification.event_type.startsWith("payment.") ? notification : "not_a_payment";
    },
  };
}
