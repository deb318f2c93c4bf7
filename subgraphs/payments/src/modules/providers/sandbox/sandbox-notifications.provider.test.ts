import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type FlatProviderNotification,
  type NestedProviderNotification,
  parseSandboxNotification,
  sandboxNotifications,
  verifyWebhookSignature,
  webhookSignatureHeader,
} from "./sandbox-notifications.provider";

const secret = "provider-webhook-secret";
const sign = (body: string, key = secret) => createHmac("sha256", key).update(body).digest("hex");

describe("provider webhook signature", () => {
  const body = JSON.stringify({ transaction_id: "txn_1", status: "paid" });

  it("accepts the hex HMAC-SHA256 of the raw body, in either case", () => {
    expect(verifyWebhookSignature(body, sign(body), secret)).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), sign(body).toUpperCase(), secret)).toBe(true);
  });

  it("rejects another secret, a changed body, a missing or malformed header", () => {
    expect(verifyWebhookSignature(body, sign(body, "other"), secret)).toBe(false);
    expect(verifyWebhookSignature(`${body} `, sign(body), secret)).toBe(false);
    expect(verifyWebhookSignature(body, undefined, secret)).toBe(false);
    expect(verifyWebhookSignature(body, [sign(body)], secret)).toBe(false);
    expect(
      sandboxNotifications("sandbox").verify(Buffer.from(body), { "x-sandbox-signature": sign(body) }, secret),
    ).toBe(true);
    expect(sandboxNotifications("sandbox").verify(Buffer.from(body), { "x-other-signature": sign(body) }, secret)).toBe(
      false,
    );
    expect(verifyWebhookSignature(body, sign(body).slice(0, 63), secret)).toBe(false);
    expect(verifyWebhookSignature(body, `sha256=${sign(body)}`, secret)).toBe(false);
  });

  it("names the header after the provider code", () => {
    expect(webhookSignatureHeader("sandbox")).toBe("x-sandbox-signature");
    expect(webhookSignatureHeader("Sandbox-Poll")).toBe("x-sandbox-poll-signature");
  });
});

describe("provider notification bodies", () => {
  const flat = (patch: Partial<FlatProviderNotification> = {}): FlatProviderNotification => ({
    event_id: "evt_01",
    event_type: "payment.succeeded",
    transaction_id: "txn_01",
    status: "paid",
    amount: 1500,
    currency: "JPY",
    refunded_amount: 0,
    decline_code: null,
    timestamp: "2026-11-22T10:00:00.000Z",
    ...patch,
  });
  const nested = (object: Partial<NestedProviderNotification["data"]["object"]> = {}): NestedProviderNotification => ({
    id: "evt_02",
    event: "payment.succeeded",
    created: 1_795_000_000,
    data: { object: { id: "txn_02", status: "succeeded", amount: 1500, currency: "jpy", ...object } },
  });
  const parse = (body: unknown) => parseSandboxNotification("sandbox", JSON.stringify(body));
  /** A 1500 JPY payment's success, as either shape must read. */
  const succeeded = (event_id: string, provider_transaction_id: string, occurred_at: Date) => ({
    provider: "sandbox",
    event_id,
    event_type: "payment.succeeded",
    provider_transaction_id,
    status: "succeeded",
    amount: 1500,
    currency: "JPY",
    refunded_amount: 0,
    failure_code: null,
    failure_message: null,
    occurred_at,
  });

  it("reads the flat shape", () => {
    expect(parse(flat())).toEqual(succeeded("evt_01", "txn_01", new Date("2026-11-22T10:00:00.000Z")));
    expect(parse(flat({ status: "declined", decline_code: "insufficient_funds" }))).toMatchObject({
      status: "failed",
      failure_code: "insufficient_funds",
    });
    expect(parse(flat({ status: "paid", refunded_amount: 500 }))).toMatchObject({
      status: "succeeded",
      refunded_amount: 500,
    });
    expect(parse(flat({ status: "expired" }))).toMatchObject({ status: "failed", failure_code: "expired" });
  });

  it("reads the nested shape", () => {
    expect(parse(nested())).toEqual(succeeded("evt_02", "txn_02", new Date(1_795_000_000 * 1000)));
    expect(parse(nested({ status: "failed", failure_code: "card_declined" }))).toMatchObject({
      status: "failed",
      failure_code: "card_declined",
    });
    expect(parse(nested({ status: "canceled" })).status).toBe("cancelled");
    expect(parse(nested({ status: "refunded", amount_refunded: 1500 }))).toMatchObject({
      status: "refunded",
      refunded_amount: 1500,
    });
  });

  it("answers not_a_payment for a well-formed event about something else", () => {
    const raw = Buffer.from(JSON.stringify(flat({ event_type: "merchant.updated" })));
    expect(sandboxNotifications("sandbox").parse(raw)).toBe("not_a_payment");
    expect(sandboxNotifications("sandbox").parse(Buffer.from(JSON.stringify(flat())))).toMatchObject({
      status: "succeeded",
    });
  });

  it("refuses what is not JSON or neither shape", () => {
    expect(() => parseSandboxNotification("sandbox", "{")).toThrow(
      expect.objectContaining({ code: "invalid_request", details: { field: "body", constraint: "json" } }),
    );
    for (const body of [{}, { ...flat(), status: "maybe" }, { ...nested(), data: {} }, { ...flat(), amount: -1 }]) {
      expect(() => parse(body)).toThrow(
        expect.objectContaining({ details: { field: "body", constraint: "notification_shape" } }),
      );
    }
  });
});
