import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { completeMessageSettings, DEFAULT_MAIL_FROM, type MessageConfig } from "@pos-cloud/common/messages";
import { keepOwnerOnly, openSubgraphDatabase } from "@pos-cloud/common/storage";
import { openPayments } from "@pos-cloud/payments";
import { openPortal } from "@pos-cloud/portal";
import { readAcquirerSettings } from "@pos-cloud/sandbox-acquirer";
import { readMessageSandboxSettings } from "@pos-cloud/sandbox-messages";
import { readSandboxSettings } from "@pos-cloud/sandbox-provider";
import { readSftpBaseUrl } from "@pos-cloud/sandbox-sftp";
import pg from "pg";
import { configureGatewaySync } from "./background";
import type { ClusterConfig, SubgraphName } from "./cluster-environment";
import { clusterProcesses } from "./cluster-processes";
import { type DemoFile, demoProviders, ensureDemoTenant } from "./demo";
import { ensureDemoOrders } from "./demo-orders";
import { loadOrCreateMasterKey } from "./master-key";
import { ensurePlatformKeys } from "./sync-partner";

/** Each process of the cluster: its workspace and entry module. */
const entryPoints = {
  sandbox: "apps/sandbox-provider/main",
  acquirer: "apps/sandbox-acquirer/main",
  messages: "apps/sandbox-messages/main",
  sftp: "apps/sandbox-sftp/main",
  portal: "subgraphs/portal/server",
  pos: "subgraphs/pos/server",
  payments: "subgraphs/payments/server",
  edge: "apps/edge/main",
  worker: "apps/worker/main",
} as const;

export interface ClusterOptions {
  /** Where the processes' output lines go, each prefixed with its name; the console when absent. */
  output?: (line: string) => void;
  /** Runs the processes from `dist/` even when this module runs from source: a test suite reuses one build. */
  compiled?: boolean;
  /** Variables every process gets on top of this process's own (limits, CORS origins), as an operator sets them. */
  environment?: NodeJS.ProcessEnv;
}

export interface RunningCluster {
  baseUrl: string;
  /** The edge's operator port: `/health`, `/ready`, `/metrics` (every instance's series summed). */
  adminUrl: string;
  sandboxUrl: string;
  /** The sandbox SFTP server (`sftp://host:port`) a merchant's accounting export may deliver to. */
  sftpUrl: string;
  demoFile?: string;
  /** The credential of the hop from the edge to the subgraphs, made for this start. */
  internalToken: string;
  /** The environment every process got, for a test that starts one more (a second edge on its own port). */
  processEnvironment: NodeJS.ProcessEnv;
  /** Each worker's `/metrics` (its `/health` and `/ready` beside it), in start order. */
  workerMetricsUrls: string[];
  close(): Promise<void>;
}

/** Creates each subgraph's database when missing (instances racing to create one are fine). */
async function ensureDatabases(urls: string[]) {
  for (const url of urls) {
    const name = new URL(url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, "/postgres") });
    await admin.connect();
    try {
      const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (rowCount === 0) {
        await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`).catch((error: { code?: string }) => {
          // 42P04: created meanwhile by another start; 23505: the same race seen by the catalog's unique index.
          if (error.code !== "42P04" && error.code !== "23505") throw error;
        });
      }
    } finally {
      await admin.end();
    }
  }
}

type StartProcess = ReturnType<typeof clusterProcesses>["start"];

/** What every process gets on top of this process's own variables and the options': addresses and credentials. */
function processEnvironment(
  config: ClusterConfig,
  environment: NodeJS.ProcessEnv | undefined,
  masterKey: Buffer,
  internalToken: string,
  baseUrl: string,
): NodeJS.ProcessEnv {
  const local = (port: number) => `http://127.0.0.1:${port}/`;
  return {
    ...process.env,
    ...environment,
    DATA_DIR: config.dataDir,
    MASTER_KEY: masterKey.toString("hex"),
    INTERNAL_TOKEN: internalToken,
    NATS_URL: config.nats.url,
    NATS_NAMESPACE: config.nats.namespace,
    REDIS_URL: config.redis.url,
    REDIS_KEY_PREFIX: config.redis.keyPrefix,
    GATEWAY_URL: baseUrl,
    PUBLIC_URL: baseUrl,
    PORTAL_URL: local(config.ports.portal),
    POS_URL: local(config.ports.pos),
    PAYMENTS_URL: local(config.ports.payments),
    WEBHOOK_ALLOW_PRIVATE_URLS: String(config.allowPrivateWebhookUrls),
  };
}

/**
 * The sandbox QR provider, the sandboxes of the card acquirer, mail and SMS where none is configured, and the SFTP
 * server a merchant's accounting export may deliver to.
 */
function startSandboxes(start: StartProcess, config: ClusterConfig, messages: MessageConfig) {
  return Promise.all([
    start(
      "sandbox",
      entryPoints.sandbox,
      { PORT: String(config.ports.sandbox), SANDBOX_PROCESSING_DELAY_MS: String(config.sandboxProcessingDelayMs) },
      // Said once its settings (address, webhook secret) are written, which it does after it listens.
      /^sandbox QR provider at/,
    ),
    // The card acquirer the workers' settlement exchange talks to: the one configured, else the sandbox's.
    config.acquirerFtpUrl
      ? undefined
      : start(
          "acquirer",
          entryPoints.acquirer,
          { PORT: String(config.ports.acquirer ?? 0), HOST: "127.0.0.1" },
          /^sandbox card acquirer at/,
        ),
    // The mail server and SMS relay the portal, POS and the workers send through, for what is not configured.
    completeMessageSettings(messages)
      ? undefined
      : start(
          "messages",
          entryPoints.messages,
          { SMTP_PORT: String(config.ports.smtp ?? 0), SMS_PORT: String(config.ports.sms ?? 0), HOST: "127.0.0.1" },
          /^sandbox mail server and SMS relay at/,
        ),
    start(
      "sftp",
      entryPoints.sftp,
      { PORT: String(config.ports.sftp ?? 0), HOST: "127.0.0.1" },
      /^sandbox SFTP server at/,
    ),
  ]);
}

/** WORKERS workers, one after another; answers the `/metrics` address each one said. */
async function startWorkers(start: StartProcess, config: ClusterConfig, env: NodeJS.ProcessEnv) {
  const workerMetricsUrls: string[] = [];
  const metricsPort = config.ports.workerMetrics ?? 0;
  for (let i = 1; i <= config.workers; i++) {
    const said = await start(
      `worker-${i}`,
      entryPoints.worker,
      {
        DATABASE_URL_PORTAL: config.databaseUrls.portal,
        DATABASE_URL_PAYMENTS: config.databaseUrls.payments,
        DATABASE_URL_POS: config.databaseUrls.pos,
        PAYMENTS_POLL_INTERVAL_MS: String(config.paymentsPollIntervalMs),
        HOST: "127.0.0.1",
        METRICS_PORT: String(metricsPort === 0 ? 0 : metricsPort + i - 1),
        ...env,
      },
      /^worker \d+ running/,
    );
    const metricsUrl = said?.match(/metrics (http:\S+?)\)?$/)?.[1];
    if (metricsUrl) workerMetricsUrls.push(metricsUrl);
  }
  return workerMetricsUrls;
}

/**
 * The platform as separate processes on one machine (`npm run start:cluster`): the sandbox QR provider, each
 * subgraph over HTTP, the edge (EDGE_INSTANCES processes sharing PORT) and WORKERS workers, on PostgreSQL, NATS
 * JetStream and Redis. The demo tenant and `demo.json` are made as `npm start` makes them. If any process ends
 * unexpectedly, the whole cluster stops (`onFailure` is told).
 */
export async function startCluster(
  config: ClusterConfig,
  options: ClusterOptions & { onFailure?: (reason: string) => void } = {},
): Promise<RunningCluster> {
  mkdirSync(config.dataDir, { recursive: true });
  // The master key and the demo's credentials: owner-only, also a data directory of an older version.
  keepOwnerOnly(config.dataDir);
  const masterKey = loadOrCreateMasterKey(config.dataDir, config.masterKey);
  const internalToken = randomBytes(32).toString("hex");
  const subgraphNames: SubgraphName[] = ["portal", "pos", "payments"];
  const messages = config.messages ?? { mailFrom: DEFAULT_MAIL_FROM };
  await ensureDatabases(subgraphNames.map((subgraph) => config.databaseUrls[subgraph]));
  // Migrated here, once, so that a failing migration stops start-up before any process runs (each subgraph
  // applies them again on open, a no-op, under the same advisory lock).
  for (const subgraph of subgraphNames) {
    await (await openSubgraphDatabase(subgraph, { url: config.databaseUrls[subgraph] })).close();
  }
  // POS pays through the gateway's signed API as the platform's own POS partner, as it does embedded; found here,
  // before any process starts, by opening the databases that hold secrets, which checks the master key against them.
  const partner = (await platformPartner(config, masterKey)).pos;
  const shownHost = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  const baseUrl = `http://${shownHost}:${config.port}`;
  const common = processEnvironment(config, options.environment, masterKey, internalToken, baseUrl);
  // Workers first (they publish to the edge's subscribers and push to its gateway), then the edge, the subgraphs
  // and the sandbox.
  const stopOrder = [["worker"], ["edge"], subgraphNames, ["sandbox", "acquirer", "messages", "sftp"]];
  const { start, close } = clusterProcesses(common, stopOrder, options);
  try {
    await startSandboxes(start, config, messages);
    const messageSandbox = readMessageSandboxSettings(config.dataDir);
    const messageEnv = {
      SMTP_URL: messages.smtpUrl ?? messageSandbox!.smtpUrl,
      MAIL_FROM: messages.mailFrom,
      SMS_RELAY_URL: messages.sms?.url ?? messageSandbox!.smsUrl,
      SMS_RELAY_SECRET: messages.sms?.secret ?? messageSandbox!.smsSecret,
    };
    const sandbox = readSandboxSettings(config.dataDir)!;
    const acquirerFtpUrl = config.acquirerFtpUrl ?? readAcquirerSettings(config.dataDir)!.ftpUrl!;
    const sandboxEnv = { SANDBOX_URL: sandbox.baseUrl!, SANDBOX_WEBHOOK_SECRET: sandbox.webhookSecret };
    const posEnv = { POS_GATEWAY_CLIENT_ID: partner.clientId, POS_GATEWAY_SECRET: partner.secret };
    await Promise.all(
      subgraphNames.map((subgraph) =>
        start(
          subgraph,
          entryPoints[subgraph],
          {
            PORT: String(config.ports[subgraph]),
            HOST: "127.0.0.1",
            DATABASE_URL: config.databaseUrls[subgraph],
            ...(subgraph === "payments" ? sandboxEnv : {}),
            ...(subgraph === "pos" ? posEnv : {}),
            ...(subgraph === "payments" ? {} : messageEnv),
          },
          { port: config.ports[subgraph], host: "127.0.0.1" },
        ),
      ),
    );
    const adminHost = config.adminHost ?? "127.0.0.1";
    const adminReach = ["0.0.0.0", "::"].includes(adminHost) ? "127.0.0.1" : adminHost;
    // Up once the operator port listens: an instance opens it after the public port.
    await start(
      "edge",
      entryPoints.edge,
      {
        PORT: String(config.port),
        HOST: config.host,
        ADMIN_PORT: String(config.ports.admin),
        ADMIN_HOST: adminHost,
        EDGE_INSTANCES: String(config.edgeInstances),
      },
      { port: config.ports.admin, host: adminReach },
    );
    const demoFile = config.demo ? await makeDemo(config, masterKey, baseUrl, sandbox) : undefined;
    // The demo store's few orders, as `npm start` makes them: through the POS API as its terminal, once, while the
    // workers start (cash payments: no worker takes part).
    const [workerMetricsUrls] = await Promise.all([
      startWorkers(start, config, { ACQUIRER_FTP_URL: acquirerFtpUrl, ...sandboxEnv, ...messageEnv }),
      demoFile && ensureDemoOrders(JSON.parse(readFileSync(demoFile, "utf8")) as DemoFile),
    ]);
    return {
      baseUrl,
      adminUrl: `http://${adminReach}:${config.ports.admin}`,
      sandboxUrl: sandbox.baseUrl!,
      sftpUrl: readSftpBaseUrl(config.dataDir)!,
      demoFile,
      internalToken,
      processEnvironment: common,
      workerMetricsUrls,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The platform's own POS partner at the gateway, found or created in the payments database opened for the moment,
 * after the portal's and payments' opens have checked the master key against their secrets.
 */
async function platformPartner(config: ClusterConfig, masterKey: Buffer) {
  await (await openPortal({ url: config.databaseUrls.portal, masterKey })).close();
  const payments = await openPayments({ url: config.databaseUrls.payments, masterKey });
  try {
    return await ensurePlatformKeys(payments.partners);
  } finally {
    await payments.close();
  }
}

/** The demo tenant, made exactly as `npm start` makes it, through storage opened here for the moment it takes. */
async function makeDemo(
  config: ClusterConfig,
  masterKey: Buffer,
  baseUrl: string,
  sandbox: NonNullable<ReturnType<typeof readSandboxSettings>>,
) {
  const portal = await openPortal({ url: config.databaseUrls.portal, masterKey });
  const payments = await openPayments({ url: config.databaseUrls.payments, masterKey });
  try {
    const partner = await configureGatewaySync(portal, payments, undefined, baseUrl);
    return await ensureDemoTenant(config.dataDir, baseUrl, portal, payments, {
      providers: demoProviders({ ...sandbox, baseUrl: sandbox.baseUrl! }),
      syncPartnerId: partner.sync.clientPartnerId,
    });
  } finally {
    await portal.close();
    await payments.close();
  }
}
