import { resolve } from "node:path";
import { parseEnvironment, settings } from "@pos-cloud/common";
import { z } from "zod";

const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);
const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\/[^/]+\/[\w-]+$/, "must be a postgresql:// URL with a database name")
  .optional();

const schema = z.object({
  PORT: port(4000),
  HOST: z.string().min(1).default("127.0.0.1"),
  EDGE_INSTANCES: z.coerce.number().int().min(1).max(64).default(2),
  WORKERS: z.coerce.number().int().min(1).max(64).default(2),
  SANDBOX_PORT: port(4104),
  PORTAL_PORT: port(4101),
  POS_PORT: port(4102),
  PAYMENTS_PORT: port(4103),
  DATA_DIR: z.string().min(1).default(".data"),
  DEMO: z.enum(["on", "off"]).default("on"),
  MASTER_KEY: settings.masterKey.optional(),
  /** The PostgreSQL server; each subgraph's database is `<DATABASE_PREFIX>_<subgraph>` there unless set below. */
  POSTGRES_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/[^/]+\/?$/, "must be a postgresql:// URL without a database name")
    .default("postgresql://root@127.0.0.1:5432"),
  DATABASE_PREFIX: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,40}$/, "lower-case letters, digits, _ only")
    .default("pos_cloud"),
  DATABASE_URL_PORTAL: postgresUrl,
  DATABASE_URL_POS: postgresUrl,
  DATABASE_URL_PAYMENTS: postgresUrl,
  NATS_URL: settings.natsUrl,
  NATS_NAMESPACE: settings.natsNamespace,
  REDIS_URL: settings.redisUrl.default("redis://127.0.0.1:6379"),
  REDIS_KEY_PREFIX: settings.redisKeyPrefix,
  WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(["true", "false"]).default("false"),
  PAYMENTS_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  SANDBOX_PROCESSING_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
});

export type SubgraphName = "portal" | "pos" | "payments";

export interface ClusterConfig {
  port: number;
  host: string;
  edgeInstances: number;
  workers: number;
  ports: Record<SubgraphName | "sandbox", number>;
  dataDir: string;
  demo: boolean;
  masterKey?: Buffer;
  databaseUrls: Record<SubgraphName, string>;
  nats: { url: string; namespace: string };
  redis: { url: string; keyPrefix: string };
  allowPrivateWebhookUrls: boolean;
  paymentsPollIntervalMs: number;
  sandboxProcessingDelayMs: number;
}

/** `npm run start:cluster`'s configuration; every problem is listed before exiting. */
export function loadClusterEnvironment(env: NodeJS.ProcessEnv = process.env): ClusterConfig {
  const e = parseEnvironment(schema, env);
  const database = (subgraph: SubgraphName) => `${e.POSTGRES_URL.replace(/\/$/, "")}/${e.DATABASE_PREFIX}_${subgraph}`;
  return {
    port: e.PORT,
    host: e.HOST,
    edgeInstances: e.EDGE_INSTANCES,
    workers: e.WORKERS,
    ports: { sandbox: e.SANDBOX_PORT, portal: e.PORTAL_PORT, pos: e.POS_PORT, payments: e.PAYMENTS_PORT },
    dataDir: resolve(e.DATA_DIR),
    demo: e.DEMO === "on",
    masterKey: e.MASTER_KEY ? Buffer.from(e.MASTER_KEY, "hex") : undefined,
    databaseUrls: {
      portal: e.DATABASE_URL_PORTAL ?? database("portal"),
      pos: e.DATABASE_URL_POS ?? database("pos"),
      payments: e.DATABASE_URL_PAYMENTS ?? database("payments"),
    },
    nats: { url: e.NATS_URL, namespace: e.NATS_NAMESPACE },
    redis: { url: e.REDIS_URL, keyPrefix: e.REDIS_KEY_PREFIX },
    allowPrivateWebhookUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS === "true",
    paymentsPollIntervalMs: e.PAYMENTS_POLL_INTERVAL_MS,
    sandboxProcessingDelayMs: e.SANDBOX_PROCESSING_DELAY_MS,
  };
}
