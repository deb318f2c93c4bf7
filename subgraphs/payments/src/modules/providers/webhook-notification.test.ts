import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type FlatProviderNotification,
  type NestedProviderNotification,
  parseProviderNotification,
} from "./webhook-notification";
import { verifyWebhookSignature, webhookSignatureHeader } from "./webhook-signature";

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
  const parse = (body: unknown) => parseProviderNotification("sandbox", JSON.stringify(body));

  it("reads the flat shape", () => {
    expect(parse(flat())).toEqual({
      provider: "sandbox",
      event_id: "evt_01",
      event_type: "payment.succeeded",
      provider_transaction_id: "txn_01",
      status: "succeeded",
      amount: 1500,
      currency: "JPY",
      refunded_amount: 0,
      failure_code: null,
      failure_message: null,
      occurred_at: new Date("2026-11-22T10:00:00.000Z"),
    });
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
    expect(parse(nested())).toEqual({
      provider: "sandbox",
      event_id: "evt_02",
      event_type: "payment.succeeded",
      provider_transaction_id: "txn_02",
      status: "succeeded",
      amount: 1500,
      currency: "JPY",
      refunded_amount: 0,
      failure_code: null,
      failure_message: null,
      occurred_at: new Date(1_795_000_000 * 1000),
    });
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

  it("refuses what is not JSON or neither shape", () => {
    expect(() => parseProviderNotification("sandbox", "{")).toThrow(
      expect.objectContaining({ code: "invalid_request", details: { field: "body", constraint: "json" } }),
    );
    for (const body of [{}, { ...flat(), status: "maybe" }, { ...nested(), data: {} }, { ...flat(), amount: -1 }]) {
      expect(() => parse(body)).toThrow(
        expect.objectContaining({ details: { field: "body", constraint: "notification_shape" } }),
      );
    }
  });
});
