import { loadSubgraphEnvironment, parseEnvironment, settings } from "@pos-cloud/common";
import { z } from "zod";
import { providerSettingsSchema } from "./modules/providers/provider.settings";

const schema = z
  .object({
    /** The sandbox QR provider's API; with SANDBOX_WEBHOOK_SECRET and GATEWAY_URL, or none of the three. */
    SANDBOX_URL: z.url({ protocol: /^https?$/ }).optional(),
    SANDBOX_WEBHOOK_SECRET: z.string().min(16, "at least 16 characters").optional(),
    /** The edge's public address: the sandbox notifies `<GATEWAY_URL>/v1/webhooks/sandbox`. */
    GATEWAY_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** The payment providers, `[{code, adapter, options}]` as JSON or `@<file>` (docs/operations.md). */
    PAYMENT_PROVIDERS: providerSettingsSchema.optional(),
    /** Partner webhooks may go to loopback and private addresses, over http too (a developer's receiver). */
    WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(["true", "false"]).default("false"),
    /** Pauses between attempts at applying a provider notification before it is dead-lettered; unset: the default. */
    PROVIDER_NOTIFICATION_RETRY_DELAYS_MS: settings.delaysMs.optional(),
    API_KEY_LIFETIME_DAYS: settings.apiKeyLifetimeDays,
  })
  .superRefine((e, context) => {
    if (e.PAYMENT_PROVIDERS !== undefined && e.GATEWAY_URL === undefined) {
      const message = "needed with PAYMENT_PROVIDERS: providers notify <GATEWAY_URL>/v1/webhooks/<code>";
      context.addIssue({ code: "custom", path: ["GATEWAY_URL"], message });
    }
    const keys = ["SANDBOX_URL", "SANDBOX_WEBHOOK_SECRET", "GATEWAY_URL"] as const;
    const set = keys.filter((key) => e[key] !== undefined);
    if (set.length === 0 || set.length === keys.length) return;
    for (const key of keys.filter((k) => e[k] === undefined)) {
      context.addIssue({ code: "custom", path: [key], message: `set together with ${set.join(", ")}` });
    }
  });

/** The payments subgraph's standalone configuration: a subgraph's, plus the sandbox provider and webhook policy. */
export function loadPaymentsEnvironment(env: NodeJS.ProcessEnv = process.env) {
  const e = parseEnvironment(schema, env);
  return {
    ...loadSubgraphEnvironment(env),
    sandbox:
      e.SANDBOX_URL && e.SANDBOX_WEBHOOK_SECRET && e.GATEWAY_URL
        ? { baseUrl: e.SANDBOX_URL, webhookSecret: e.SANDBOX_WEBHOOK_SECRET, gatewayUrl: e.GATEWAY_URL }
        : undefined,
    paymentProviders: e.PAYMENT_PROVIDERS,
    gatewayUrl: e.GATEWAY_URL,
    partnerWebhooks: { allowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS === "true" },
    webhookRetryDelaysMs: e.PROVIDER_NOTIFICATION_RETRY_DELAYS_MS,
    apiKeyLifetimeDays: e.API_KEY_LIFETIME_DAYS,
  };
}
