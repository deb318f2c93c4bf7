import { providerContract } from "@pos-cloud/test-support/provider-contract";
import { contractSandbox } from "@pos-cloud/test-support/sandbox-provider";
import { describe, expect, it, vi } from "vitest";
import { buildProviders } from "../provider-directory.service";
import { providerRegistry } from "../provider-registry.service";
import { webhookSignatureHeader } from "./sandbox-notifications.provider";

providerContract("sandbox adapter, against the sandbox", async () => {
  const outside = await contractSandbox();
  const { providers, webhookSecrets } = await buildProviders(
    [{ code: "sandbox", adapter: "sandbox", options: { follow: "both", timeoutMs: 1_000 } }],
    outside.context,
  );
  const provider = providers[0]!;
  return {
    provider,
    credentials: outside.credentials,
    pay: (qr) => outside.pay(qr.qr_content),
    declinedAmount: 113,
    outlive: outside.outlive,
    disagree: outside.disagree,
    fail: outside.fail,
    webhook: {
      secret: webhookSecrets.sandbox!,
      async arrived(id) {
        const found = await vi.waitFor(
          () => {
            const notification = outside.receiver.received.find((n) => n.body.transaction_id === id);
            if (!notification) throw new Error(`no notification about ${id} yet`);
            return notification;
          },
          { timeout: 5_000 },
        );
        return { raw: Buffer.from(found.raw), headers: found.headers };
      },
    },
    close: outside.close,
  };
});

describe("sandbox adapter", () => {
  it("sends the notifications of a webhook configuration, signed in its own header, and none for polling", async () => {
    const outside = await contractSandbox();
    try {
      const { providers } = await buildProviders(
        [
          { code: "sandbox", adapter: "sandbox", options: { follow: "webhook" } },
          { code: "sandbox-poll", adapter: "sandbox", options: { follow: "polling" } },
        ],
        outside.context,
      );
      const [webhook, polling] = providers as [(typeof providers)[0], (typeof providers)[0]];
      expect(polling.notifications).toBeUndefined();
      const request = (reference: string) => ({ amount: 700, currency: "JPY", reference, mode: "mpm" as const });
      const polled = await polling.createQr(request("pi_polled"), outside.credentials);
      await outside.pay(polled.qr_content);
      const notified = await webhook.createQr(request("pi_notified"), outside.credentials);
      await outside.pay(notified.qr_content);
      // Notifications leave in order: once a later one arrived, one for the polled payment would have too.
      const arrived = await vi.waitFor(
        () => {
          const found = outside.receiver.received.find(
            (n) => n.body.transaction_id === notified.provider_transaction_id,
          );
          if (!found) throw new Error("not yet");
          return found;
        },
        { timeout: 5_000 },
      );
      expect(arrived.headers[webhookSignatureHeader("sandbox")]).toMatch(/^[0-9a-f]{64}$/);
      expect(outside.receiver.received.some((n) => n.body.transaction_id === polled.provider_transaction_id)).toBe(
        false,
      );
    } finally {
      await outside.close();
    }
  });

  it("turns wrong credentials into bad_gateway, an unknown payment into not_found", async () => {
    const outside = await contractSandbox();
    try {
      const { providers } = await buildProviders(
        [{ code: "sandbox", adapter: "sandbox", options: { follow: "polling" } }],
        outside.context,
      );
      const wrong = { ...outside.credentials, api_secret: "not-the-secret" };
      const qr = { amount: 100, currency: "JPY", reference: "pi_wrong", mode: "mpm" as const };
      await expect(providers[0]!.createQr(qr, wrong)).rejects.toMatchObject({ code: "bad_gateway" });
      await expect(providers[0]!.getPaymentStatus("txn_unknown", outside.credentials)).rejects.toMatchObject({
        code: "not_found",
      });
    } finally {
      await outside.close();
    }
  });
});

describe("providers from configuration", () => {
  const context = {
    gatewayUrl: "http://gateway.invalid",
    sandbox: { baseUrl: "http://sandbox.invalid", webhookSecret: "s" },
  };

  it("builds each entry with its adapter folder; the registry finds them case-insensitively", async () => {
    const setup = await buildProviders(
      [
        { code: "sandbox", adapter: "sandbox", options: { follow: "webhook" } },
        { code: "sandbox-poll", adapter: "sandbox", options: { follow: "polling", pollIntervalMs: 2000 } },
      ],
      context,
    );
    const registry = providerRegistry(setup.providers);
    expect(registry.codes()).toEqual(["sandbox", "sandbox-poll"]);
    expect(registry.get("Sandbox").follow).toEqual({ mode: "webhook", pollIntervalMs: 5000 });
    expect(registry.get("sandbox-poll").follow).toEqual({ mode: "polling", pollIntervalMs: 2000 });
    expect(setup.webhookSecrets).toEqual({ sandbox: "s" });
  });

  it("refuses an unknown adapter, wrong options, and an unknown or duplicate code", async () => {
    await expect(buildProviders([{ code: "x", adapter: "nowhere" }], context)).rejects.toThrow(
      /no payment provider adapter "nowhere"/,
    );
    await expect(buildProviders([{ code: "x", adapter: "../sandbox" }], context)).rejects.toThrow(/not a folder name/);
    await expect(
      buildProviders([{ code: "x", adapter: "sandbox", options: { follow: "sometimes" } }], context),
    ).rejects.toThrow(/payment provider x \(sandbox\): follow/);
    const registry = providerRegistry(
      (await buildProviders([{ code: "sandbox", adapter: "sandbox", options: { follow: "webhook" } }], context))
        .providers,
    );
    expect(() => registry.get("paypay")).toThrow(
      expect.objectContaining({
        code: "invalid_request",
        details: { field: "provider", constraint: "known_provider" },
      }),
    );
    const twice = await buildProviders(
      [
        { code: "sandbox", adapter: "sandbox", options: { follow: "webhook" } },
        { code: "sandbox", adapter: "sandbox", options: { follow: "polling" } },
      ],
      context,
    );
    expect(() => providerRegistry(twice.providers)).toThrow(/twice/);
  });
});
