import { providerContract } from "@pos-cloud/test-support/provider-contract";
import { contractSandbox } from "@pos-cloud/test-support/sandbox-provider";
import { describe, expect, it } from "vitest";
import { buildProviders } from "../provider-directory.service";

const paypayAt = async (context: Awaited<ReturnType<typeof contractSandbox>>["context"], options = {}) =>
  (
    await buildProviders(
      [{ code: "paypay", adapter: "paypay", options: { baseUrl: "sandbox", timeoutMs: 1_000, ...options } }],
      context,
    )
  ).providers[0]!;

providerContract("PayPay adapter, against the sandbox's PayPay protocol", async () => {
  const outside = await contractSandbox();
  return {
    provider: await paypayAt(outside.context),
    credentials: outside.credentials,
    pay: (qr) => outside.pay(qr.qr_content),
    declinedAmount: 113,
    outlive: outside.outlive,
    disagree: outside.disagree,
    fail: outside.fail,
    close: outside.close,
  };
});

describe("PayPay adapter", () => {
  it("is followed by polling at PayPay's recommended 4.5 s unless configured; its notifications only prompt", async () => {
    const outside = await contractSandbox();
    try {
      const standard = await paypayAt(outside.context);
      expect(standard.follow).toEqual({ mode: "polling", pollIntervalMs: 4_500 });
      expect(standard.notifications).toBeUndefined();
      expect(standard.prompts).toBeDefined();
      expect((await paypayAt(outside.context, { pollIntervalMs: 4_000 })).follow.pollIntervalMs).toBe(4_000);
      await expect(paypayAt(outside.context, { follow: "webhook" })).rejects.toThrow(/payment provider paypay/);
    } finally {
      await outside.close();
    }
  });

  it("refuses what PayPay's dynamic QR cannot do before calling it; wrong credentials are bad_gateway", async () => {
    const outside = await contractSandbox();
    try {
      const paypay = await paypayAt(outside.context);
      const qr = { amount: 100, currency: "JPY", reference: "pi_cpm", mode: "cpm" as const };
      await expect(paypay.createQr(qr, outside.credentials)).rejects.toMatchObject({
        details: { field: "payment_method_type" },
      });
      await expect(paypay.createQr({ ...qr, mode: "mpm", currency: "USD" }, outside.credentials)).rejects.toMatchObject(
        {
          details: { field: "currency" },
        },
      );
      const wrong = { ...outside.credentials, api_secret: "not-the-secret" };
      await expect(paypay.createQr({ ...qr, mode: "mpm" }, wrong)).rejects.toMatchObject({
        code: "bad_gateway",
        details: { provider_code: "UNAUTHORIZED" },
      });
      const otherMerchant = { ...outside.credentials, merchant_id: "someone-else" };
      await expect(paypay.createQr({ ...qr, mode: "mpm" }, otherMerchant)).rejects.toMatchObject({
        code: "bad_gateway",
        details: { provider_code: "OP_OUT_OF_SCOPE" },
      });
      await expect(paypay.getPaymentStatus("pi_unknown", outside.credentials)).rejects.toMatchObject({
        code: "not_found",
        details: { provider_code: "DYNAMIC_QR_PAYMENT_NOT_FOUND" },
      });
    } finally {
      await outside.close();
    }
  });
});
