import { parseEnvironment, settings } from "@pos-cloud/common";
import { messagesFromEnvironment } from "@pos-cloud/common/messages";
import { type ProviderSetting, providerSettingsSchema, type WebhookDeliverySettings } from "@pos-cloud/payments";
import { z } from "zod";

const schema = z
  .object({
    DATABASE_URL_PORTAL: settings.postgresUrl,
    DATABASE_URL_PAYMENTS: settings.postgresUrl,
    /** POS's background work (the consumer that settles QR payments) writes here. */
    DATABASE_URL_POS: settings.postgresUrl,
    MASTER_KEY: settings.masterKey,
    /** The portal subgraph and the credential of the hop to it, which POS asks about stores and staff. */
    PORTAL_URL: z.url({ protocol: /^https?$/ }).default("http://127.0.0.1:4101/"),
    INTERNAL_TOKEN: z.string().min(32, "must be at least 32 characters"),
    OTEL_EXPORTER_OTLP_ENDPOINT: settings.otlpEndpoint.optional(),
    /** The operators' port: /health, /ready, /metrics (0: any free port, printed at start). */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(4110),
    HOST: z.string().min(1).default("127.0.0.1"),
    NATS_URL: settings.natsUrl,
    NATS_NAMESPACE: settings.natsNamespace,
    /** The edge's public address: the portal syncs tenants to it and the sandbox notifies it. */
    GATEWAY_URL: z.url({ protocol: /^https?$/ }).default("http://127.0.0.1:4000"),
    /** The sandbox QR provider, for the poller; both or neither. */
    SANDBOX_URL: z.url({ protocol: /^https?$/ }).optional(),
    SANDBOX_WEBHOOK_SECRET: z.string().min(16, "at least 16 characters").optional(),
    /** The payment providers, `[{code, adapter, options}]` as JSON or `@<file>` (docs/operations.md). */
    PAYMENT_PROVIDERS: providerSettingsSchema.optional(),
    PAYMENTS_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
    /** The card acquirer of the daily settlement exchange (02:00 Asia/Tokyo); unset: no exchange in this worker. */
    ACQUIRER_FTP_URL: z
      .url({ protocol: /^ftps?$/ })
      .refine((url) => new URL(url).username !== "" && new URL(url).password !== "", {
        message: "must carry the account: ftp://user:password@host:port/",
      })
      .optional(),
    /** Partner webhooks may go to loopback and private addresses, over http too (a developer's receiver). */
    WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(["true", "false"]).default("false"),
    /** A partner that has not answered a webhook by then has failed the attempt; unset: the dispatcher's default. */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).optional(),
    /** Pauses after failed webhook attempts, comma-separated (`5000,25000`); unset: the dispatcher's default. */
    WEBHOOK_RETRY_DELAYS_MS: settings.delaysMs.optional(),
  })
  .superRefine((e, context) => {
    if ((e.SANDBOX_URL === undefined) !== (e.SANDBOX_WEBHOOK_SECRET === undefined)) {
      const missing = e.SANDBOX_URL === undefined ? "SANDBOX_URL" : "SANDBOX_WEBHOOK_SECRET";
      context.addIssue({
        code: "custom",
        path: [missing],
        message: "SANDBOX_URL and SANDBOX_WEBHOOK_SECRET go together",
      });
    }
  });

export interface WorkerConfig {
  databaseUrls: { portal: string; payments: string; pos: string };
  masterKey: Buffer;
  portalUrl: string;
  internalToken: string;
  /** Where traces go; absent, tracing is off. */
  otlpEndpoint?: string;
  metrics: { port: number; host: string };
  messaging: { url: string; namespace: string };
  gatewayUrl: string;
  sandbox?: { baseUrl: string; webhookSecret: string };
  /** Unset: the sandbox's defaults when SANDBOX_URL is set. */
  paymentProviders?: ProviderSetting[];
  paymentsPollIntervalMs: number;
  partnerWebhooks: WebhookDeliverySettings;
  acquirerFtpUrl?: string;
  /** Where retried e-mail and SMS go (SMTP_URL, SMS_RELAY_URL, SMS_RELAY_SECRET, MAIL_FROM); unset: they fail. */
  messages?: ReturnType<typeof messagesFromEnvironment>;
}

/** The worker's configuration; nothing is generated (every worker must agree), every problem listed before exiting. */
export function loadWorkerEnvironment(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const e = parseEnvironment(schema, env);
  return {
    databaseUrls: { portal: e.DATABASE_URL_PORTAL, payments: e.DATABASE_URL_PAYMENTS, pos: e.DATABASE_URL_POS },
    masterKey: Buffer.from(e.MASTER_KEY, "hex"),
    portalUrl: e.PORTAL_URL,
    internalToken: e.INTERNAL_TOKEN,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    metrics: { port: e.METRICS_PORT, host: e.HOST },
    messaging: { url: e.NATS_URL, namespace: e.NATS_NAMESPACE },
    gatewayUrl: e.GATEWAY_URL.replace(/\/$/, ""),
    sandbox:
      e.SANDBOX_URL && e.SANDBOX_WEBHOOK_SECRET
        ? { baseUrl: e.SANDBOX_URL, webhookSecret: e.SANDBOX_WEBHOOK_SECRET }
        : undefined,
    paymentProviders: e.PAYMENT_PROVIDERS,
    paymentsPollIntervalMs: e.PAYMENTS_POLL_INTERVAL_MS,
    messages: messagesFromEnvironment(env),
    acquirerFtpUrl: e.ACQUIRER_FTP_URL,
    partnerWebhooks: {
      allowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS === "true",
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryDelaysMs: e.WEBHOOK_RETRY_DELAYS_MS,
    },
  };
}
