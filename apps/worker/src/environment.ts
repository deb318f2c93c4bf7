import { parseEnvironment, settings } from "@pos-cloud/common";
import { z } from "zod";

const schema = z
  .object({
    DATABASE_URL_PORTAL: settings.postgresUrl,
    DATABASE_URL_PAYMENTS: settings.postgresUrl,
    MASTER_KEY: settings.masterKey,
    NATS_URL: settings.natsUrl,
    NATS_NAMESPACE: settings.natsNamespace,
    /** The edge's public address: the portal syncs tenants to it and the sandbox notifies it. */
    GATEWAY_URL: z.url({ protocol: /^https?$/ }).default("http://127.0.0.1:4000"),
    /** The sandbox QR provider, for the poller; both or neither. */
    SANDBOX_URL: z.url({ protocol: /^https?$/ }).optional(),
    SANDBOX_WEBHOOK_SECRET: z.string().min(16, "at least 16 characters").optional(),
    PAYMENTS_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
    /** Partner webhooks may go to loopback and private addresses, over http too (a developer's receiver). */
    WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(["true", "false"]).default("false"),
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
  databaseUrls: { portal: string; payments: string };
  masterKey: Buffer;
  messaging: { url: string; namespace: string };
  gatewayUrl: string;
  sandbox?: { baseUrl: string; webhookSecret: string };
  paymentsPollIntervalMs: number;
  allowPrivateWebhookUrls: boolean;
}

/** The worker's configuration; nothing is generated (every worker must agree), every problem listed before exiting. */
export function loadWorkerEnvironment(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const e = parseEnvironment(schema, env);
  return {
    databaseUrls: { portal: e.DATABASE_URL_PORTAL, payments: e.DATABASE_URL_PAYMENTS },
    masterKey: Buffer.from(e.MASTER_KEY, "hex"),
    messaging: { url: e.NATS_URL, namespace: e.NATS_NAMESPACE },
    gatewayUrl: e.GATEWAY_URL.replace(/\/$/, ""),
    sandbox:
      e.SANDBOX_URL && e.SANDBOX_WEBHOOK_SECRET
        ? { baseUrl: e.SANDBOX_URL, webhookSecret: e.SANDBOX_WEBHOOK_SECRET }
        : undefined,
    paymentsPollIntervalMs: e.PAYMENTS_POLL_INTERVAL_MS,
    allowPrivateWebhookUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS === "true",
  };
}
