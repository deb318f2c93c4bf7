import type { PlatformConfig } from "../../apps/platform/src/environment";
import type { RunningPlatform, startPlatform } from "../../apps/platform/src/platform";

export interface TestPlatform {
  baseUrl: string;
  /** The operator's listener: `/health`, `/ready`, `/metrics` (never on the public port). */
  adminUrl: string;
  dataDir: string;
  /** The running portal's services (valid until stop). */
  portal: RunningPlatform["portal"];
  /** Issues client partners and API keys (no API exists for that yet). */
  partners: Awaited<ReturnType<typeof startPlatform>>["partners"];
  /** The configuration it runs with, for commands that work on its storage (stop it first). */
  config: PlatformConfig;
  /** The payments subgraph's services: dead letters, one polling cycle on demand. */
  payments: Awaited<ReturnType<typeof startPlatform>>["payments"];
  /** The POS subgraph's services: what the POS payments call on bills. */
  pos: RunningPlatform["pos"];
  /** The message bus the outbox publishes to (valid until stop). */
  bus: RunningPlatform["bus"];
  /** The periodic jobs, for a test that moves the clock and runs one (`trigger`); in process only. */
  jobs?: RunningPlatform["jobs"];
  /** Stops the platform but keeps its storage, for restart tests. */
  stop(): Promise<void>;
  /** Starts it again on the same storage. */
  restart(): Promise<void>;
  /** Stops it and removes its storage. */
  close(): Promise<void>;
}

export type TestPlatformOptions = { demo?: boolean; clock?: () => Date; bus?: RunningPlatform["bus"] } & Pick<
  PlatformConfig,
  | "rateLimits"
  | "corsOrigins"
  | "redisUrl"
  | "redisKeyPrefix"
  | "paymentsPollIntervalMs"
  | "webhookRetryDelaysMs"
  | "partnerWebhooks"
  | "devMailbox"
  | "messageRetryDelaysMs"
  | "graphqlLimits"
  | "graphqlSchemaDetails"
  | "httpTimeouts"
  | "connectionLimits"
>;
