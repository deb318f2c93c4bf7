import { z } from "zod";
import { DEFAULT_API_AUDIENCE } from "./tokens";

/** The formats of settings that several processes read, so each is checked the same way everywhere. */
export const settings = {
  /** The operator's port (`/health`, `/ready`, `/metrics`) of the embedded platform and the edge. */
  adminPort: z.coerce.number().int().min(0).max(65535).default(4001),
  /** Loopback: descriptor counts, traffic by route and job schedules are the operator's, never the internet's. */
  adminHost: z.string().min(1).default("127.0.0.1"),
  postgresUrl: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL"),
  natsUrl: z
    .string()
    .regex(/^(nats|tls):\/\/[^,]+(,(nats|tls):\/\/[^,]+)*$/, "must be nats:// URLs, comma-separated")
    .default("nats://127.0.0.1:4222"),
  /** Prefix of the NATS subjects, streams and consumers: deployments sharing one NATS keep apart by it. */
  natsNamespace: z
    .string()
    .regex(/^\w{1,32}$/, "letters, digits, _ only")
    .default("pgw"),
  redisUrl: z.string().regex(/^rediss?:\/\//, "must be a redis:// URL"),
  redisKeyPrefix: z
    .string()
    .regex(/^[\w.-]{1,64}$/, "letters, digits, . _ - only")
    .default("pgw"),
  masterKey: z.string().regex(/^[0-9a-f]{64}$/i, "must be 64 hex characters (32 bytes)"),
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: an OTLP/HTTP collector's base URL; set, the process exports its traces there. */
  otlpEndpoint: z.string().regex(/^https?:\/\/\S+$/, "must be an http:// or https:// URL"),
  /** The `aud` of access tokens: the portal signs it and the edge requires it. */
  apiAudience: z
    .string()
    .regex(/^[\x21-\x7e]{1,200}$/, "printable ASCII without spaces, at most 200 characters")
    .default(DEFAULT_API_AUDIENCE),
  /** How long a partner API key works after issue; the spec's rotation period is 180 days. */
  apiKeyLifetimeDays: z.coerce.number().int().min(1).max(3650).default(180),
  /** How old a sale recorded offline (an order, a bill, a cash payment with `occurred_at`) may be when it arrives. */
  offlineSalesWindowHours: z.coerce.number().int().min(1).max(720).default(72),
  /** Web-view origins allowed to call the payment-token endpoints, comma-separated. */
  corsOrigins: z
    .string()
    .default("")
    .transform((value) =>
      value
        .split(",")
        .map((origin) => origin.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.url({ protocol: /^https?$/ }))),
  /** Pauses between attempts, in milliseconds, comma-separated (`5000,20000`). */
  delaysMs: z
    .string()
    .regex(/^\d+(,\d+)*$/, "milliseconds, comma-separated")
    .transform((value) => value.split(",").map(Number)),
};

/** A sandbox run as a process of its own (cluster mode): its state under DATA_DIR, where it listens. */
export const sandboxProcessSettings = z.object({
  DATA_DIR: z.string().min(1).default(".data"),
  HOST: z.string().min(1).default("127.0.0.1"),
  /** 0 keeps the port of the last start when free. */
  PORT: z.coerce.number().int().min(0).max(65535).default(0),
});

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: settings.postgresUrl,
  INTERNAL_TOKEN: z.string().min(32, "must be at least 32 characters"),
  MASTER_KEY: settings.masterKey,
  OTEL_EXPORTER_OTLP_ENDPOINT: settings.otlpEndpoint.optional(),
});

export interface SubgraphServerConfig {
  port: number;
  host: string;
  databaseUrl: string;
  internalToken: string;
  masterKey: Buffer;
  /** Where traces go; absent, tracing is off. */
  otlpEndpoint?: string;
}

/** Parses the environment with a zod schema; on failure lists every problem and exits, as every app must. */
export function parseEnvironment<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.output<T> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
  console.error(`invalid configuration:\n${problems.join("\n")}`);
  process.exit(1);
}

/**
 * Configuration of a subgraph's standalone server (cluster wiring): everything is required, nothing is generated.
 * Every problem is listed before exiting.
 */
export function loadSubgraphEnvironment(env: NodeJS.ProcessEnv = process.env): SubgraphServerConfig {
  const e = parseEnvironment(schema, env);
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    internalToken: e.INTERNAL_TOKEN,
    masterKey: Buffer.from(e.MASTER_KEY, "hex"),
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
  };
}
