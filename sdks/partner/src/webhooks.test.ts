import { describe, expect, it } from "vitest";
import { signedHeaders } from "../../../subgraphs/payments/src/modules/webhooks/webhook-sender.client";
import { verifyWebhook, WebhookVerificationError } from "./index.ts";

const secret = `whsec_${Buffer.from("partner webhook secret bytes").toString("base64")}`;
const sentAt = new Date("2026-11-28T10:00:00Z");
const body = JSON.stringify({
  id: "evt_01",
  type: "payment_intent.succeeded",
  created_at: sentAt.toISOString(),
  data: {
    id: "pi_01",
    status: "succeeded",
    amount: 500,
    currency: "JPY",
    store_id: 1,
    merchant_ref_id: "r1",
    captured_at: null,
  },
});
const headers = signedHeaders({ id: "evt_01", body, timestamp: sentAt }, [secret]);
const at = (ms: number) => () => sentAt.getTime() + ms;
const only = (prefix: string) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith(prefix)));

describe("verifyWebhook", () => {
  it("returns the event the platform signed, from the Standard Webhooks or the X-Gw-* headers", () => {
    for (const set of [only("webhook-"), only("x-gw-"), new Headers(headers)]) {
      const event = verifyWebhook(secret, set, body, at(1000));
      expect(event).toMatchObject({
        id: "evt_01",
        type: "payment_intent.succeeded",
        data: { id: "pi_01", amount: 500 },
      });
    }
  });

  it("accepts either secret while one rotates", () => {
    const other = `whsec_${Buffer.from("the next secret").toString("base64")}`;
    const rotating = signedHeaders({ id: "evt_01", body, timestamp: sentAt }, [other, secret]);
    expect(verifyWebhook(secret, rotating, Buffer.from(body), at(0)).id).toBe("evt_01");
  });

  it.each([
    ["a tampered body", secret, body.replace("500", "5000"), at(0)],
    ["another secret", `whsec_${Buffer.from("not theirs").toString("base64")}`, body, at(0)],
    ["an old timestamp", secret, body, at(301_000)],
    ["a timestamp from the future", secret, body, at(-301_000)],
  ])("refuses %s", (_case, key, received, now) => {
    expect(() => verifyWebhook(key, headers, received, now)).toThrow(WebhookVerificationError);
  });

  it("refuses a message without its signature headers", () => {
    expect(() => verifyWebhook(secret, only("content-"), body, at(0))).toThrow("missing webhook signature headers");
  });
});
