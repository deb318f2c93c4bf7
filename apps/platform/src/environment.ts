import { resolve } from "node:path";
import { parseEnvironment } from "@pos-cloud/common";
import type { RateLimits } from "@pos-cloud/rest-compat";
import { z } from "zod";

const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL")
  .optional();

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATA_DIR: z.string().min(1).default(".data"),
  DEMO: z.enum(["on", "off"]).default("on"),
  MASTER_KEY: z
    .string()
    .regex(/^[0-9a-f]{64}$/i, "must be 64 hex characters (32 bytes)")
    .optional(),
  DATABASE_URL_PORTAL: postgresUrl,
  DATABASE_URL_POS: postgresUrl,
  DATABASE_URL_PAYMENTS: postgresUrl,
  /** How often the gateway asks polled providers (`sandbox-poll`) about waiting payments. */
  PAYMENTS_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  SANDBOX_PROCESSING_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
  GATEWAY_URL: z.url({ protocol: /^https?$/ }).optional(),
  PORTAL_GATEWAY_CLIENT_ID: z.string().min(1).optional(),
  PORTAL_GATEWAY_SECRET: z.string().min(16, "at least 16 characters").optional(),
  PORTAL_GATEWAY_PARTNER_ID: z.coerce.number().int().positive().optional(),
  /** Web-view origins allowed to call the payment-token endpoints, comma-separated. */
  CORS_ORIGINS: z
    .string()
    .default("")
    .transform((value) =>
      value
        .split(",")
        .map((origin) => origin.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.url({ protocol: /^https?$/ }))),
  /** Rate-limit counters shared by every edge instance; unset keeps them in memory (one process). */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// URL")
    .optional(),
  MESSAGE_WEBHOOK_URL: z.url({ protocol: /^https?$/ }).optional(),
  MESSAGE_WEBHOOK_TOKEN: z.string().min(1).optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[\w.-]{1,64}$/, "letters, digits, . _ - only")
    .default("pgw"),
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
});

export interface PlatformConfig {
  port: number;
  host: string;
  dataDir: string;
  demo: boolean;
  masterKey?: Buffer;
  databaseUrls: { portal?: string; pos?: string; payments?: string };
  /** Between a customer paying at the sandbox QR provider and the outcome; 0 (or absent) decides at once. */
  sandboxProcessingDelayMs?: number;
  /**
   * Where the portal pushes tenant configuration (POST /v1/sync/merchants) and as which client partner. Without it
   * the platform provisions its own POS partner at its own gateway and syncs as that. The URL defaults to this
   * platform's own address (the embedded gateway).
   */
  gatewaySync?: { url?: string; clientId: string; secret: string; clientPartnerId: number };
  /** Between polling cycles for polled providers; 5 s when absent. */
  paymentsPollIntervalMs?: number;
  /** Pauses between attempts at a failing provider notification; tests shorten them. */
  webhookRetryDelaysMs?: number[];
  corsOrigins?: string[];
  redisUrl?: string;
  /** Namespace of the rate-limit keys, for deployments that share one Redis. */
  redisKeyPrefix?: string;
  /** The gateway's rate limits; the spec's values unless a test lowers them. */
  rateLimits?: Partial<RateLimits>;
  /** Where MFA codes by SMS and e-mail go; unset: recorded only (log and `GET /api/v1/dev/messages`). */
  messageWebhook?: { url: string; token?: string };
}

/** The embedded platform's configuration from the environment; every problem is listed before exiting. */
export function loadEnvironment(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const e = parseEnvironment(checked, env);
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: resolve(e.DATA_DIR),
    demo: e.DEMO === "on",
    masterKey: e.MASTER_KEY ? Buffer.from(e.MASTER_KEY, "hex") : undefined,
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
    paymentsPollIntervalMs: e.PAYMENTS_POLL_INTERVAL_MS,
    corsOrigins: e.CORS_ORIGINS,
    redisUrl: e.REDIS_URL,
    messageWebhook: e.MESSAGE_WEBHOOK_URL ? { url: e.MESSAGE_WEBHOOK_URL, token: e.MESSAGE_WEBHOOK_TOKEN } : undefined,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
  };
}
