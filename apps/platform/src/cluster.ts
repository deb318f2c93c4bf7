import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { repositoryRoot } from "@pos-cloud/common";
import { completeMessageSettings, DEFAULT_MAIL_FROM } from "@pos-cloud/common/messages";
import { openSubgraphDatabase } from "@pos-cloud/common/storage";
import { openPayments } from "@pos-cloud/payments";
import { openPortal } from "@pos-cloud/portal";
import { readAcquirerSettings } from "@pos-cloud/sandbox-acquirer";
import { readMessageSandboxSettings } from "@pos-cloud/sandbox-messages";
import { readSandboxSettings } from "@pos-cloud/sandbox-provider";
import pg from "pg";
import { configureGatewaySync } from "./background";
import type { ClusterConfig, SubgraphName } from "./cluster-environment";
import { type DemoFile, demoProviders, ensureDemoTenant } from "./demo";
import { ensureDemoOrders } from "./demo-orders";
import { loadOrCreateMasterKey } from "./master-key";
import { ensureSyncPartner } from "./sync-partner";

/** Each process of the cluster: its workspace and entry module. */
const entryPoints = {
  sandbox: "apps/sandbox-provider/main",
  acquirer: "apps/sandbox-acquirer/main",
  messages: "apps/sandbox-messages/main",
  portal: "subgraphs/portal/server",
  pos: "subgraphs/pos/server",
  payments: "subgraphs/payments/server",
  edge: "apps/edge/main",
  worker: "apps/worker/main",
} as const;

/**
 * V8's young generation up to 16 MB a semi-space (as `npm start` and `start:cluster` run): a request allocates
 * megabytes of short-lived objects (a hierarchy read's 400 stores, twice over federation), and with the default
 * V8 scavenged several times per request (docs/benchmarks.md).
 */
const nodeFlags = ["--max-semi-space-size=16"];

/**
 * Node's arguments for one entry point: the compiled `dist/` when this module is compiled itself (`npm run
 * start:cluster` builds first) or `compiled` says so, the TypeScript sources with tsx otherwise (tests, `tsx`).
 */
function entryArguments(entryPoint: string, compiled = import.meta.url.endsWith(".js")): string[] {
  const workspace = join(repositoryRoot, dirname(entryPoint));
  const name = basename(entryPoint);
  return compiled
    ? [...nodeFlags, "--conditions=compiled", join(workspace, "dist", `${name}.js`)]
    : [...nodeFlags, "--import", "tsx", join(workspace, "src", `${name}.ts`)];
}

/** How long one process may take to listen before start-up gives up. */
const START_TIMEOUT_MS = 60_000;

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
  sandboxUrl: string;
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

function waitForPort(port: number, host: string, child: ChildProcess, name: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const exited = () => reject(new Error(`${name} ended before it listened (exit code ${child.exitCode})`));
    child.once("exit", exited);
    const attempt = () => {
      const socket = connect(port, host);
      socket.once("connect", () => {
        socket.destroy();
        child.off("exit", exited);
        resolve();
      });
      socket.once("error", () => {
        socket.destroy();
        if (child.exitCode !== null) return;
        if (Date.now() > deadline) {
          child.off("exit", exited);
          reject(new Error(`${name} did not listen on ${host}:${port} within ${START_TIMEOUT_MS / 1000} s`));
        } else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
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
  const output = options.output ?? ((line: string) => console.log(line));
  mkdirSync(config.dataDir, { recursive: true });
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
  const partner = await platformPartner(config, masterKey);
  const local = (port: number) => `http://127.0.0.1:${port}/`;
  const shownHost = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  const baseUrl = `http://${shownHost}:${config.port}`;
  const common: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.environment,
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
  const running: { name: string; child: ChildProcess }[] = [];
  let stopping = false;
  const start = async (
    name: string,
    entryPoint: string,
    env: NodeJS.ProcessEnv,
    ready?: { port: number; host: string } | RegExp,
  ): Promise<string | undefined> => {
    const child = spawn(process.execPath, entryArguments(entryPoint, options.compiled), {
      cwd: repositoryRoot,
      env: { ...common, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.push({ name, child });
    // A process without a port is up once it says so (a worker prints "worker <pid> running").
    const said =
      ready instanceof RegExp
        ? new Promise<string>((resolve, reject) => {
            child.once("exit", () => reject(new Error(`${name} ended before it was running`)));
            createInterface({ input: child.stdout! }).on("line", (line) => ready.test(line) && resolve(line));
          })
        : undefined;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on("line", (line) => output(`[${name}] ${line}`));
    }
    child.once("exit", (code, signal) => {
      if (stopping) return;
      const reason = `${name} ended unexpectedly (${signal ?? `exit code ${code}`}); stopping the cluster`;
      output(reason);
      options.onFailure?.(reason);
      void close();
    });
    if (said) return await said;
    if (ready && !(ready instanceof RegExp)) await waitForPort(ready.port, ready.host, child, name);
    return undefined;
  };
  const close = async () => {
    if (stopping) return;
    stopping = true;
    // Workers first (they publish to the edge's subscribers and push to its gateway), then the edge, the subgraphs
    // and the sandbox.
    for (const group of [["worker"], ["edge"], subgraphNames, ["sandbox", "acquirer", "messages"]]) {
      await Promise.all(
        running.filter(({ name }) => group.some((g) => name.startsWith(g))).map(({ child }) => stopProcess(child)),
      );
    }
  };
  try {
    await Promise.all([
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
    ]);
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
    await start(
      "edge",
      entryPoints.edge,
      { PORT: String(config.port), HOST: config.host, EDGE_INSTANCES: String(config.edgeInstances) },
      { port: config.port, host: shownHost === "localhost" ? "127.0.0.1" : config.host },
    );
    const demoFile = config.demo ? await makeDemo(config, masterKey, baseUrl, sandbox) : undefined;
    const workerMetricsUrls: string[] = [];
    const metricsPort = config.ports.workerMetrics ?? 0;
    const startWorkers = async () => {
      for (let i = 1; i <= config.workers; i++) {
        const said = await start(
          `worker-${i}`,
          entryPoints.worker,
          {
            DATABASE_URL_PORTAL: config.databaseUrls.portal,
            DATABASE_URL_PAYMENTS: config.databaseUrls.payments,
            DATABASE_URL_POS: config.databaseUrls.pos,
            ACQUIRER_FTP_URL: acquirerFtpUrl,
            PAYMENTS_POLL_INTERVAL_MS: String(config.paymentsPollIntervalMs),
            HOST: "127.0.0.1",
            METRICS_PORT: String(metricsPort === 0 ? 0 : metricsPort + i - 1),
            ...sandboxEnv,
            ...messageEnv,
          },
          /^worker \d+ running/,
        );
        const metricsUrl = said?.match(/metrics (http:\S+?)\)?$/)?.[1];
        if (metricsUrl) workerMetricsUrls.push(metricsUrl);
      }
    };
    // The demo store's few orders, as `npm start` makes them: through the POS API as its terminal, once, while the
    // workers start (cash payments: no worker takes part).
    await Promise.all([
      startWorkers(),
      demoFile && ensureDemoOrders(JSON.parse(readFileSync(demoFile, "utf8")) as DemoFile),
    ]);
    return {
      baseUrl,
      sandboxUrl: sandbox.baseUrl!,
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
    return await ensureSyncPartner(payments.partners);
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
      partnerId: partner.clientPartnerId,
    });
  } finally {
    await portal.close();
    await payments.close();
  }
}
