import { randomUUID } from "node:crypto";
import { AppError } from "@pos-cloud/common";
import { type MerchantAccount, type RunningSandbox, startSandbox } from "@pos-cloud/sandbox-provider";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { notificationReceiver, testAccount } from "../../../../../tests/support/sandbox-provider";
import type { PaymentProvider, ProviderCredentials } from "./provider";
import { providerRegistry } from "./provider-registry";
import { sandboxProvider, sandboxProviders } from "./sandbox.provider";
import { parseProviderNotification } from "./webhook-notification";
import { verifyWebhookSignature, webhookSignatureHeader } from "./webhook-signature";

const webhookSecret = "adapter-test-webhook-secret";
const credentialsOf = ({ merchant_id, api_key, api_secret }: MerchantAccount): ProviderCredentials => ({
  merchant_id,
  api_key,
  api_secret,
});

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("sandbox provider adapter, against a running sandbox", () => {
  const webhookAccount = testAccount("webhook");
  const pollingAccount = testAccount("polling");
  let now = Date.now();
  let sandbox: RunningSandbox;
  let receiver: Awaited<ReturnType<typeof notificationReceiver>>;
  let provider: PaymentProvider;
  let polling: PaymentProvider;
  const credentials = credentialsOf(webhookAccount);

  beforeAll(async () => {
    receiver = await notificationReceiver();
    sandbox = await startSandbox({
      webhookSecret,
      accounts: [webhookAccount, pollingAccount],
      expiresInSeconds: 60,
      retryDelaysMs: [],
      now: () => now,
    });
    const registry = providerRegistry([
      sandboxProvider({ code: "sandbox", delivery: "webhook", baseUrl: sandbox.baseUrl, notifyUrl: receiver.url }),
      sandboxProvider({ code: "sandbox-poll", delivery: "polling", baseUrl: sandbox.baseUrl }),
    ]);
    provider = registry.get("sandbox");
    polling = registry.get("SANDBOX-POLL");
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  const request = (amount: number) => ({
    amount,
    currency: "JPY",
    reference: `pi_${randomUUID()}`,
    mode: "mpm" as const,
  });
  const pay = (id: string) => fetch(`${sandbox.baseUrl}/sandbox/transactions/${id}/pay`, { method: "POST" });

  it("creates a QR, and after the customer pays reports succeeded; the notification verifies and parses", async () => {
    const qr = await provider.createQr(request(2500), credentials);
    expect(qr.status).toBe("pending");
    expect(qr.qr_content).toBe(`${sandbox.baseUrl}/pay/${qr.provider_transaction_id}`);
    expect(qr.expires_at).toBeInstanceOf(Date);
    await pay(qr.provider_transaction_id);
    expect(await provider.getPaymentStatus(qr.provider_transaction_id, credentials)).toMatchObject({
      status: "succeeded",
      amount: 2500,
      currency: "JPY",
      refunded_amount: 0,
      failure_code: null,
    });

    await vi.waitFor(() =>
      expect(receiver.received.some((n) => n.body.transaction_id === qr.provider_transaction_id)).toBe(true),
    );
    const arrived = receiver.received.find((n) => n.body.transaction_id === qr.provider_transaction_id)!;
    expect(verifyWebhookSignature(arrived.raw, arrived.headers[webhookSignatureHeader("sandbox")], webhookSecret)).toBe(
      true,
    );
    expect(parseProviderNotification("sandbox", arrived.raw)).toMatchObject({
      provider: "sandbox",
      provider_transaction_id: qr.provider_transaction_id,
      status: "succeeded",
      amount: 2500,
    });
  });

  it("reports declines and insufficient funds as failed with the provider's reason", async () => {
    for (const [amount, code] of [
      [113, "card_declined"],
      [214, "insufficient_funds"],
    ] as const) {
      const qr = await provider.createQr(request(amount), credentials);
      await pay(qr.provider_transaction_id);
      const payment = await provider.getPaymentStatus(qr.provider_transaction_id, credentials);
      expect(payment).toMatchObject({ status: "failed", failure_code: code });
      expect(payment.failure_message).toBeTruthy();
    }
  });

  it("reports an expired QR as failed with failure_code expired", async () => {
    const qr = await provider.createQr(request(300), credentials);
    now += 61_000;
    expect(await provider.getPaymentStatus(qr.provider_transaction_id, credentials)).toMatchObject({
      status: "failed",
      failure_code: "expired",
    });
  });

  it("cancels a pending payment, and refuses to cancel a paid one", async () => {
    const pending = await provider.createQr(request(400), credentials);
    expect((await provider.cancelPayment(pending.provider_transaction_id, credentials)).status).toBe("cancelled");
    const paid = await provider.createQr(request(400), credentials);
    await pay(paid.provider_transaction_id);
    expect((await rejection(provider.cancelPayment(paid.provider_transaction_id, credentials))).code).toBe(
      "invalid_state",
    );
  });

  it("refunds in parts, refuses more than is left, and repeats a refund for a repeated key", async () => {
    const qr = await provider.createQr(request(1000), credentials);
    await pay(qr.provider_transaction_id);
    const id = qr.provider_transaction_id;
    const first = await provider.refundPayment(
      { provider_transaction_id: id, amount: 400, idempotency_key: "k1" },
      credentials,
    );
    expect(first.payment).toMatchObject({ status: "succeeded", refunded_amount: 400 });
    const again = await provider.refundPayment(
      { provider_transaction_id: id, amount: 400, idempotency_key: "k1" },
      credentials,
    );
    expect(again.provider_refund_id).toBe(first.provider_refund_id);
    const tooMuch = await rejection(
      provider.refundPayment({ provider_transaction_id: id, amount: 601, idempotency_key: "k2" }, credentials),
    );
    expect(tooMuch).toMatchObject({ code: "invalid_request", details: { field: "amount" } });
    const rest = await provider.refundPayment(
      { provider_transaction_id: id, amount: 600, idempotency_key: "k3" },
      credentials,
    );
    expect(rest.payment).toMatchObject({ status: "refunded", refunded_amount: 1000 });
  });

  it("turns wrong credentials and an unreachable provider into bad_gateway, an unknown payment into not_found", async () => {
    const wrong = { ...credentials, api_secret: "not-the-secret" };
    expect((await rejection(provider.createQr(request(100), wrong))).code).toBe("bad_gateway");
    expect((await rejection(provider.getPaymentStatus("txn_unknown", credentials))).code).toBe("not_found");
    const nowhere = sandboxProvider({ code: "sandbox", delivery: "webhook", baseUrl: "http://127.0.0.1:9" });
    expect((await rejection(nowhere.getPaymentStatus("txn_x", credentials))).code).toBe("bad_gateway");
  });

  it("polls: the polling configuration gets no notification, only the status it asks for", async () => {
    const pollingCredentials = credentialsOf(pollingAccount);
    const qr = await polling.createQr(request(700), pollingCredentials);
    await pay(qr.provider_transaction_id);
    expect((await polling.getPaymentStatus(qr.provider_transaction_id, pollingCredentials)).status).toBe("succeeded");
    // Notifications leave in order: once a later one arrived, one for the polling payment would have too.
    const later = await provider.createQr(request(700), credentials);
    await pay(later.provider_transaction_id);
    await vi.waitFor(() =>
      expect(receiver.received.some((n) => n.body.transaction_id === later.provider_transaction_id)).toBe(true),
    );
    expect(receiver.received.some((n) => n.body.transaction_id === qr.provider_transaction_id)).toBe(false);
  });
});

describe("provider registry", () => {
  const providers = sandboxProviders({ baseUrl: "http://sandbox.invalid", gatewayBaseUrl: "http://gateway.invalid" });

  it("finds providers by code, case-insensitively, and knows how each delivers outcomes", () => {
    const registry = providerRegistry(providers);
    expect(registry.codes()).toEqual(["sandbox", "sandbox-poll"]);
    expect(registry.get("Sandbox").delivery).toBe("webhook");
    expect(registry.get("sandbox-poll").delivery).toBe("polling");
  });

  it("answers an unknown code with invalid_request on field provider", () => {
    const registry = providerRegistry(providers);
    expect(() => registry.get("paypay")).toThrow(
      expect.objectContaining({
        code: "invalid_request",
        details: { field: "provider", constraint: "known_provider" },
      }),
    );
    expect(() => providerRegistry([...providers, providers[0]!])).toThrow(/twice/);
  });
});
