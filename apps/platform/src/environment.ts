import { resolve } from "node:path";
import { type HttpTimeouts, parseEnvironment, settings } from "@pos-cloud/common";
import {
  type MessageConfig,
  messageConfig,
  messageSettings,
  messageSettingsProblems,
} from "@pos-cloud/common/messages";
import type { MessagingConfig } from "@pos-cloud/common/messaging";
import { type ConnectionLimits, type GraphQLLimits, limitSettings, limitsFromEnvironment } from "@pos-cloud/edge";
import { type ProviderSetting, providerSettingsSchema, type WebhookDeliverySettings } from "@pos-cloud/payments";
import type { RateLimits, RedisDownPolicy } from "@pos-cloud/rest-compat";
import { z } from "zod";

const postgresUrl = settings.postgresUrl.optional();

const schema = z.object({
  /** `production` turns GraphQL introspection and field suggestions off. */
  NODE_ENV: z.string().default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  /** Loopback unless told otherwise: the embedded platform is a developer's machine, not a server. */
  HOST: z.string().min(1).default("127.0.0.1"),
  /** The operator's `/health`, `/ready` and `/metrics`: a listener of their own, loopback unless set. */
  ADMIN_PORT: settings.adminPort,
  ADMIN_HOST: settings.adminHost,
  DATA_DIR: z.string().min(1).default(".data"),
  DEMO: z.enum(["on", "off"]).default("on"),
  MASTER_KEY: settings.masterKey.optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: settings.otlpEndpoint.optional(),
  /** What `npm run backup` encrypts a backup with and `npm run restore` opens it with; the platform itself never reads it. */
  BACKUP_PASSPHRASE: z.string().min(12, "at least 12 characters").optional(),
  DATABASE_URL_PORTAL: postgresUrl,
  DATABASE_URL_POS: postgresUrl,
  DATABASE_URL_PAYMENTS: postgresUrl,
  /** The payment providers, `[{code, adapter, options}]` as JSON or `@<file>`; unset: the sandbox's (operations.md). */
  PAYMENT_PROVIDERS: providerSettingsSchema.optional(),
  /** How often the gateway asks polled providers (`sandbox-poll`) about waiting payments. */
  PAYMENTS_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  SANDBOX_PROCESSING_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
  /** The card acquirer's FTP server with the merchant account; unset: the sandbox acquirer `npm start` runs. */
  ACQUIRER_FTP_URL: z
    .url({ protocol: /^ftps?$/ })
    .refine((url) => new URL(url).username !== "" && new URL(url).password !== "", {
      message: "must carry the account: ftp://user:password@host:port/",
    })
    .optional(),
  GATEWAY_URL: z.url({ protocol: /^https?$/ }).optional(),
  PORTAL_GATEWAY_CLIENT_ID: z.string().min(1).optional(),
  PORTAL_GATEWAY_SECRET: z.string().min(16, "at least 16 characters").optional(),
  PORTAL_GATEWAY_PARTNER_ID: z.coerce.number().int().positive().optional(),
  CORS_ORIGINS: settings.corsOrigins,
  API_AUDIENCE: settings.apiAudience,
  /** Rate-limit counters shared by every edge instance; unset keeps them in memory (one process). */
  REDIS_URL: settings.redisUrl.optional(),
  /** `memory` keeps events in this process; `nats` puts them on NATS JetStream, for several processes. */
  MESSAGING_DRIVER: z.enum(["memory", "nats"]).default("memory"),
  /** Partner webhooks may go to loopback and private addresses, over http too: on for the embedded platform. */
  WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(["true", "false"]).default("true"),
  API_KEY_LIFETIME_DAYS: settings.apiKeyLifetimeDays,
  OFFLINE_SALES_WINDOW_HOURS: settings.offlineSalesWindowHours,
  NATS_URL: settings.natsUrl,
  ...messageSettings,
  /**
   * `GET /api/v1/dev/messages` for system operators; unset: on with the demo tenant while the sandbox mail server
   * takes the mail (no SMTP_URL), else off. Never in production.
   */
  DEV_MAILBOX: z.enum(["on", "off"]).optional(),
  REDIS_KEY_PREFIX: settings.redisKeyPrefix,
  /** While Redis is unreachable: `open` counts in each process's memory, `closed` refuses requests with 503. */
  RATE_LIMIT_REDIS_DOWN: z.enum(["open", "closed"]).default("open"),
  ...limitSettings,
});

/**
 * The portal's client partner at the gateway: all three settings or none (none: the platform's own partner at its
 * own gateway, so another gateway's URL needs them).
 */
const gatewaySyncKeys = ["PORTAL_GATEWAY_CLIENT_ID", "PORTAL_GATEWAY_SECRET", "PORTAL_GATEWAY_PARTNER_ID"] as const;
const checked = schema.superRefine((e, context) => {
  const set = gatewaySyncKeys.filter((key) => e[key] !== undefined);
  if (set.length > 0 && set.length < gatewaySyncKeys.length) {
    for (const key of gatewaySyncKeys.filter((k) => e[k] === undefined)) {
      context.addIssue({ code: "custom", path: [key], message: `set together with ${set.join(", ")}` });
    }
  }
  if (e.GATEWAY_URL !== undefined && set.length === 0) {
    const message = `needs ${gatewaySyncKeys.join(", ")}: the platform's own sync partner is at this platform's gateway`;
    context.addIssue({ code: "custom", path: ["GATEWAY_URL"], message });
  }
  if (e.DEV_MAILBOX === "on" && e.NODE_ENV === "production") {
    const message = "the mailbox hands out login codes: production never has it; leave DEV_MAILBOX unset";
    context.addIssue({ code: "custom", path: ["DEV_MAILBOX"], message });
  }
  if (e.DEV_MAILBOX === "on" && e.SMTP_URL !== undefined && e.SMS_RELAY_URL !== undefined) {
    const message =
      "messages go to SMTP_URL and SMS_RELAY_URL, so the mailbox would stay empty; leave DEV_MAILBOX unset";
    context.addIssue({ code: "custom", path: ["DEV_MAILBOX"], message });
  }
  messageSettingsProblems(e, context);
});

export interface PlatformConfig {
  port: number;
  host: string;
  /** The operator's listener (`/health`, `/ready`, `/metrics`). */
  admin: { port: number; host: string };
  dataDir: string;
  demo: boolean;
  masterKey?: Buffer;
  /** Where traces go (OTLP/HTTP, JSON); absent, tracing is off (docs/operations.md, "Tracing"). */
  otlpEndpoint?: string;
  /** Encrypts and opens backups (`npm run backup`, `npm run restore`); absent, both refuse to run. */
  backupPassphrase?: string;
  databaseUrls: { portal?: string; pos?: string; payments?: string };
  /** Between a customer paying at the sandbox QR provider and the outcome; 0 (or absent) decides at once. */
  sandboxProcessingDelayMs?: number;
  /**
   * Where the portal pushes tenant configuration (POST /v1/sync/merchants) and as which client partner. Without it
   * the platform provisions its own POS partner at its own gateway and syncs as that. The URL defaults to this
   * platform's own address (the embedded gateway).
   */
  gatewaySync?: { url?: string; clientId: string; secret: string; clientPartnerId: number };
  /** The payment providers; the sandbox's defaults when absent. */
  paymentProviders?: ProviderSetting[];
  /** Between polling cycles for polled providers; 5 s when absent. */
  paymentsPollIntervalMs?: number;
  /** The card acquirer of the daily settlement exchange (`ftp://user:password@host:port/`); absent: the sandbox. */
  acquirerFtpUrl?: string;
  /** Pauses between attempts at a failing provider notification; tests shorten them. */
  webhookRetryDelaysMs?: number[];
  /** The message bus; in memory when absent. */
  messaging?: MessagingConfig;
  /** Outbound partner webhooks; private URLs are refused unless `allowPrivateUrls`. */
  partnerWebhooks?: WebhookDeliverySettings;
  /** How long a partner API key works after issue (API_KEY_LIFETIME_DAYS); 180 days unless set. */
  apiKeyLifetimeDays?: number;
  /** How old a sale recorded offline may be when it arrives (OFFLINE_SALES_WINDOW_HOURS); 72 hours unless set. */
  offlineSalesWindowHours?: number;
  corsOrigins?: string[];
  /** The `aud` of access tokens (`API_AUDIENCE`); `DEFAULT_API_AUDIENCE` where unset. */
  apiAudience?: string;
  redisUrl?: string;
  /** Namespace of the rate-limit keys, for deployments that share one Redis. */
  redisKeyPrefix?: string;
  rateLimitRedisDown?: RedisDownPolicy;
  /** Requests per minute the edge allows each caller; the spec's values where unset (RATE_LIMIT_*). */
  rateLimits?: Partial<RateLimits>;
  /** How long a client may take to send its headers and its request (HTTP_*_TIMEOUT_MS); the defaults where unset. */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** Connections the public port holds at once, in all and per client address (CONNECTIONS_*); defaults where unset. */
  connectionLimits?: Partial<ConnectionLimits>;
  /** The mail server and SMS relay; what is unset goes to the sandbox the platform runs. */
  messages?: MessageConfig;
  /** Pauses between attempts at an e-mail or SMS that failed; tests shorten them. */
  messageRetryDelaysMs?: number[];
  /**
   * Serves what the sandbox mail server and SMS relay received at `GET /api/v1/dev/messages`, to system operators
   * only. Off unless set: the codes there log anyone in who knows a password.
   */
  devMailbox?: boolean;
  /** What one GraphQL operation may ask for and how long it may run; the edge's defaults where unset. */
  graphqlLimits?: Partial<GraphQLLimits>;
  /** GraphQL introspection and "Did you mean ..." suggestions: on for development, off in production. */
  graphqlSchemaDetails?: boolean;
}

/** The embedded platform's configuration from the environment; every problem is listed before exiting. */
export function loadEnvironment(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const e = parseEnvironment(checked, env);
  return {
    port: e.PORT,
    host: e.HOST,
    admin: { port: e.ADMIN_PORT, host: e.ADMIN_HOST },
    dataDir: resolve(e.DATA_DIR),
    demo: e.DEMO === "on",
    masterKey: e.MASTER_KEY ? Buffer.from(e.MASTER_KEY, "hex") : undefined,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    backupPassphrase: e.BACKUP_PASSPHRASE,
    databaseUrls: { portal: e.DATABASE_URL_PORTAL, pos: e.DATABASE_URL_POS, payments: e.DATABASE_URL_PAYMENTS },
    sandboxProcessingDelayMs: e.SANDBOX_PROCESSING_DELAY_MS,
    gatewaySync:
      e.PORTAL_GATEWAY_CLIENT_ID && e.PORTAL_GATEWAY_SECRET && e.PORTAL_GATEWAY_PARTNER_ID
        ? {
            url: e.GATEWAY_URL,
            clientId: e.PORTAL_GATEWAY_CLIENT_ID,
            secret: e.PORTAL_GATEWAY_SECRET,
            clientPartnerId: e.PORTAL_GATEWAY_PARTNER_ID,
          }
        : undefined,
    paymentProviders: e.PAYMENT_PROVIDERS,
    paymentsPollIntervalMs: e.PAYMENTS_POLL_INTERVAL_MS,
    acquirerFtpUrl: e.ACQUIRER_FTP_URL,
    partnerWebhooks: { allowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS === "true" },
    apiKeyLifetimeDays: e.API_KEY_LIFETIME_DAYS,
    offlineSalesWindowHours: e.OFFLINE_SALES_WINDOW_HOURS,
    messaging: e.MESSAGING_DRIVER === "nats" ? { driver: "nats", url: e.NATS_URL } : { driver: "memory" },
    corsOrigins: e.CORS_ORIGINS,
    apiAudience: e.API_AUDIENCE,
    redisUrl: e.REDIS_URL,
    messages: messageConfig(e),
    devMailbox:
      (e.DEV_MAILBOX ?? (e.DEMO === "on" && !e.SMTP_URL && e.NODE_ENV !== "production" ? "on" : "off")) === "on",
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    rateLimitRedisDown: e.RATE_LIMIT_REDIS_DOWN,
    ...limitsFromEnvironment(e),
    graphqlSchemaDetails: e.NODE_ENV !== "production",
  };
}
