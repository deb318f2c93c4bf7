import { resolve } from "node:path";
import { parseEnvironment, settings } from "@pos-cloud/common";
import {
  type MessageConfig,
  messageConfig,
  messageSettings,
  messageSettingsProblems,
} from "@pos-cloud/common/messages";
import { z } from "zod";

const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);
const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\/[^/]+\/[\w-]+$/, "must be a postgresql:// URL with a database name")
  .optional();

const schema = z
  .object({
    PORT: port(4000),
    HOST: z.string().min(1).default("127.0.0.1"),
    /** The edge's operator port (`/health`, `/ready`, `/metrics`), shared by its instances; on ADMIN_HOST (loopback). */
    ADMIN_PORT: port(4001),
    ADMIN_HOST: settings.adminHost,
    EDGE_INSTANCES: z.coerce.number().int().min(1).max(64).default(2),
    WORKERS: z.coerce.number().int().min(1).max(64).default(2),
    SANDBOX_PORT: port(4104),
    PORTAL_PORT: port(4101),
    POS_PORT: port(4102),
    PAYMENTS_PORT: port(4103),
    /** The sandbox card acquirer's FTP port (unless ACQUIRER_FTP_URL names another acquirer). */
    ACQUIRER_PORT: port(4105),
    /** The sandbox mail server's SMTP port and SMS relay's HTTP port (unless SMTP_URL and SMS_RELAY_URL are set). */
    SMTP_PORT: port(4106),
    SMS_PORT: port(4107),
    /** The sandbox SFTP server's port, a merchant's accounting export's server. */
    SFTP_PORT: port(4108),
    ...messageSettings,
    /** The card acquirer of the settlement exchange, with the merchant account: ftp://user:password@host:port/. */
    ACQUIRER_FTP_URL: z
      .url({ protocol: /^ftps?$/ })
      .refine((url) => new URL(url).username !== "" && new URL(url).password !== "", {
        message: "must carry the account: ftp://user:password@host:port/",
      })
      .optional(),
    /** Worker n serves /health, /ready and /metrics on this port + n - 1; 0: each on a free port (printed). */
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65471).default(4110),
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
  })
  .superRefine(messageSettingsProblems);

export type SubgraphName = "portal" | "pos" | "payments";

export interface ClusterConfig {
  port: number;
  host: string;
  adminHost?: string;
  edgeInstances: number;
  workers: number;
  /** `workerMetrics`: the first worker's operations port (the next workers count up); absent or 0: free ports. */
  /** `admin`: the edge's operator port, on `adminHost` (loopback unless set). */
  ports: Record<SubgraphName | "sandbox" | "admin", number> & {
    workerMetrics?: number;
    acquirer?: number;
    smtp?: number;
    sms?: number;
    sftp?: number;
  };
  /** The mail server and SMS relay; what is unset goes to the sandbox the cluster starts. */
  messages?: MessageConfig;
  /** The card acquirer the workers exchange with; absent: the sandbox acquirer the cluster starts. */
  acquirerFtpUrl?: string;
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
    adminHost: e.ADMIN_HOST,
    edgeInstances: e.EDGE_INSTANCES,
    workers: e.WORKERS,
    ports: {
      sandbox: e.SANDBOX_PORT,
      admin: e.ADMIN_PORT,
      portal: e.PORTAL_PORT,
      pos: e.POS_PORT,
      payments: e.PAYMENTS_PORT,
      workerMetrics: e.WORKER_METRICS_PORT,
      acquirer: e.ACQUIRER_PORT,
      smtp: e.SMTP_PORT,
      sms: e.SMS_PORT,
      sftp: e.SFTP_PORT,
    },
    messages: messageConfig(e),
    acquirerFtpUrl: e.ACQUIRER_FTP_URL,
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
