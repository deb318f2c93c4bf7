import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { hostSubgraph, type SubgraphHost } from "@pos-cloud/common";
import type { JobRegistry, JobState } from "@pos-cloud/common/jobs";
import type { MessageTransport } from "@pos-cloud/common/messages";
import type { MessageBus } from "@pos-cloud/common/messaging";
import { keepOwnerOnly } from "@pos-cloud/common/storage";
import { startEdge } from "@pos-cloud/edge";
import { openPayments, type PartnerService, type PaymentsDeps, payments } from "@pos-cloud/payments";
import { openPortal, portal } from "@pos-cloud/portal";
import { openPos, type PortalCall, portalClient, pos } from "@pos-cloud/pos";
import { sandboxMailbox } from "@pos-cloud/sandbox-messages";
import { type BackgroundWork, configureGatewaySync, startBackgroundWork } from "./background";
import { serveBackups } from "./backup";
import { type DemoFile, demoProviders, ensureDemoTenant } from "./demo";
import { ensureDemoOrders } from "./demo-orders";
import type { PlatformConfig } from "./environment";
import { loadOrCreateMasterKey } from "./master-key";
import { type OutsideParties, startOutsideParties } from "./outside-parties";

export interface RunningPlatform {
  baseUrl: string;
  port: number;
  /** The operator's listener: `/health`, `/ready` (with the jobs) and `/metrics`. */
  adminUrl: string;
  /** The sandbox QR provider's own address (a listener of its own, like an external provider). */
  sandboxUrl: string;
  /** The sandbox card acquirer's FTP address (`ftp://host:port`), when the platform runs it (no ACQUIRER_FTP_URL). */
  acquirerUrl?: string;
  /** The sandbox SFTP server a merchant's accounting export may deliver to (`sftp://host:port`). */
  sftpUrl: string;
  /** Path of demo.json, when the demo tenant exists. */
  demoFile?: string;
  /** The portal's services in this process, for tests that need a party only the portal can mint (a human token). */
  portal: Awaited<ReturnType<typeof openPortal>>;
  /** The POS subgraph's services and storage, for benchmarks that seed orders. */
  pos: Awaited<ReturnType<typeof openPos>>;
  /** The in-process subgraphs and the credential of their hop, for benchmarks that call a subgraph directly. */
  subgraphs: Record<"portal" | "pos" | "payments", SubgraphHost>;
  internalToken: string;
  /** Client partners and their keys have no API yet; operators (and tests) issue them here. */
  partners: PartnerService;
  /** The payments subgraph's services, for operator tasks (dead letters) and tests that drive the poller. */
  payments: PaymentsDeps;
  /** The message bus the outbox publishes to; consumers (webhooks, subscriptions, POS) attach here. */
  bus: MessageBus;
  /** The periodic jobs of every subgraph (listed by `GET /ready`); tests run one by name (`trigger`). */
  jobs: JobRegistry;
  close(): Promise<void>;
}

/** What only code (tests) can set: a clock to move time for the portal and the edge together. */
export interface PlatformOptions {
  /** A bus in place of the configured one (tests: one that refuses); the platform closes it like its own. */
  bus?: MessageBus;
  /** Tests move time through it: token lifetimes, key rotation, intent expiry. */
  clock?: () => Date;
}

/** Opens each subgraph's database, applying its migrations; if one fails, the ones already open are closed. */
async function openSubgraphs(
  config: PlatformConfig,
  masterKey: Buffer,
  extras: { clock?: () => Date; messages: { transport: MessageTransport; retryDelaysMs?: number[] } },
  publicUrl: () => string | undefined,
  portalApi: PortalCall,
) {
  const storage = (url?: string) => ({ url, dataDir: config.dataDir });
  const opened = await Promise.allSettled([
    openPortal({
      ...storage(config.databaseUrls.portal),
      masterKey,
      ...extras,
      publicUrl,
      apiAudience: config.apiAudience,
    }),
    openPos({
      ...storage(config.databaseUrls.pos),
      masterKey,
      portal: portalApi,
      clock: extras.clock,
      messages: extras.messages,
      offlineSalesWindowHours: config.offlineSalesWindowHours,
    }),
    openPayments({
      ...storage(config.databaseUrls.payments),
      masterKey,
      clock: extras.clock,
      webhookRetryDelaysMs: config.webhookRetryDelaysMs,
      partnerWebhooks: config.partnerWebhooks,
      apiKeyLifetimeDays: config.apiKeyLifetimeDays,
    }),
  ] as const);
  const failure = opened.find((result) => result.status === "rejected");
  if (failure) {
    await Promise.all(opened.map((result) => (result.status === "fulfilled" ? result.value.close() : undefined)));
    throw failure.reason;
  }
  const [portalDeps, posDeps, paymentsDeps] = opened.map((result) => (result as PromiseFulfilledResult<unknown>).value);
  return {
    portal: portalDeps as Awaited<ReturnType<typeof openPortal>>,
    pos: posDeps as Awaited<ReturnType<typeof openPos>>,
    payments: paymentsDeps as Awaited<ReturnType<typeof openPayments>>,
  };
}

type OpenSubgraphs = Awaited<ReturnType<typeof openSubgraphs>>;

/** Opens the subgraphs and hosts them in this process; the POS reaches the portal through its in-process hop. */
async function hostSubgraphs(
  config: PlatformConfig,
  masterKey: Buffer,
  internalToken: string,
  extras: { clock?: () => Date; messages: { transport: MessageTransport; retryDelaysMs?: number[] } },
  publicUrl: () => string | undefined,
) {
  // The POS asks the portal's API about stores and staff over the in-process hop, once the portal is hosted below.
  let portalApi: PortalCall | undefined;
  const deps = await openSubgraphs(config, masterKey, extras, publicUrl, (...call) => portalApi!(...call));
  const subgraphs = {
    portal: hostSubgraph(portal, deps.portal, internalToken),
    pos: hostSubgraph(pos, deps.pos, internalToken),
    payments: hostSubgraph(payments, deps.payments, internalToken),
  };
  portalApi = portalClient({ host: subgraphs.portal }, internalToken);
  return { deps, subgraphs };
}

/** The edge in front of the in-process subgraphs; `/ready` checks their databases and lists the jobs. */
function startEmbeddedEdge(
  config: PlatformConfig,
  options: PlatformOptions,
  wiring: {
    internalToken: string;
    bus: MessageBus;
    deps: OpenSubgraphs;
    subgraphs: Record<"portal" | "pos" | "payments", SubgraphHost>;
    publicUrl: () => string | undefined;
    jobs: () => JobState[];
  },
) {
  const { deps, subgraphs } = wiring;
  return startEdge({
    port: config.port,
    host: config.host,
    admin: config.admin,
    internalToken: wiring.internalToken,
    bus: wiring.bus,
    corsOrigins: config.corsOrigins,
    apiAudience: config.apiAudience,
    publicUrl: wiring.publicUrl,
    redisUrl: config.redisUrl,
    redisKeyPrefix: config.redisKeyPrefix,
    rateLimitRedisDown: config.rateLimitRedisDown,
    readiness: {
      portal_database: () => deps.portal.db.query("SELECT 1"),
      pos_database: () => deps.pos.db.query("SELECT 1"),
      payments_database: () => deps.payments.db.query("SELECT 1"),
    },
    jobs: wiring.jobs,
    rateLimits: config.rateLimits,
    httpTimeouts: config.httpTimeouts,
    connectionLimits: config.connectionLimits,
    graphqlLimits: config.graphqlLimits,
    graphqlSchemaDetails: config.graphqlSchemaDetails,
    clock: options.clock,
    devMessages: config.devMailbox ? () => sandboxMailbox(config.dataDir).list() : undefined,
    subgraphs: {
      portal: { host: subgraphs.portal },
      pos: { host: subgraphs.pos },
      payments: { host: subgraphs.payments },
    },
  });
}

/**
 * What needs the platform's address: the sandbox provider's callbacks, the gateway sync's partner (the POS pays as
 * it), the demo tenant and its orders, the card exchange's acquirer. Answers demo.json's path when there is a demo.
 */
async function configureAt(
  baseUrl: string,
  config: PlatformConfig,
  options: PlatformOptions,
  deps: OpenSubgraphs,
  { sandbox, acquirer }: Pick<OutsideParties, "sandbox" | "acquirer">,
) {
  await deps.payments.providers.configure(config.paymentProviders, { gatewayUrl: baseUrl, sandbox });
  const keys = await configureGatewaySync(deps.portal, deps.payments, config.gatewaySync, baseUrl);
  // POS pays through the gateway's signed API as the same partner with its own key, as from a process of its own.
  await deps.pos.gateway.configure({ ...keys.pos, url: config.gatewaySync?.url ?? baseUrl });
  const demoFile = config.demo
    ? await ensureDemoTenant(config.dataDir, baseUrl, deps.portal, deps.payments, {
        providers: demoProviders(sandbox),
        syncPartnerId: keys.sync.clientPartnerId,
      })
    : undefined;
  // A few orders in the demo store, taken through the POS API as its terminal (once: the store has none).
  if (demoFile) await ensureDemoOrders(JSON.parse(readFileSync(demoFile, "utf8")) as DemoFile, options.clock);
  // The daily card settlement exchange (a job) with the configured acquirer or the sandbox.
  deps.pos.cardExchange.configure({ url: config.acquirerFtpUrl ?? acquirer?.ftpUrl });
  return demoFile;
}

/** The data directory and the master key in it (or the configured one). */
function openDataDir(config: PlatformConfig): Buffer {
  mkdirSync(config.dataDir, { recursive: true });
  // The databases, the master key and the demo's credentials: owner-only, also a data directory of an older version.
  keepOwnerOnly(config.dataDir);
  return loadOrCreateMasterKey(config.dataDir, config.masterKey);
}

/** The embedded wiring: every subgraph in this process behind one edge, storage in PGlite unless URLs say otherwise. */
export async function startPlatform(config: PlatformConfig, options: PlatformOptions = {}): Promise<RunningPlatform> {
  const masterKey = openDataDir(config);
  const internalToken = randomBytes(32).toString("hex");
  // The public URL is known once the edge listens (the port may be chosen by the system).
  let baseUrl: string | undefined;
  // The jobs start last; the edge's /ready lists them from then on.
  let background: BackgroundWork | undefined;
  // The subgraphs open first: databases that the master key does not open stop the start before anything else runs.
  // Their messages go out through the outside parties' transport, there before anything is sent.
  let outside: OutsideParties | undefined;
  const { deps, subgraphs } = await hostSubgraphs(
    config,
    masterKey,
    internalToken,
    {
      clock: options.clock,
      messages: { transport: (message) => outside!.transport(message), retryDelaysMs: config.messageRetryDelaysMs },
    },
    () => baseUrl,
  );
  // `npm run backup` reaches embedded databases through this process, the only one that may open them.
  const embedded = Object.values(config.databaseUrls).every((url) => url === undefined);
  let stopBackups = async () => {};
  const closeSubgraphs = async () => {
    await stopBackups();
    await Promise.all([deps.portal.close(), deps.pos.close(), deps.payments.close()]);
  };
  try {
    outside = await startOutsideParties(config, options.bus);
  } catch (error) {
    await closeSubgraphs();
    throw error;
  }
  const { sandbox, acquirer, bus } = outside;
  let edge: Awaited<ReturnType<typeof startEdge>>;
  try {
    edge = await startEmbeddedEdge(config, options, {
      internalToken,
      bus,
      deps,
      subgraphs,
      publicUrl: () => baseUrl,
      jobs: () => background?.jobs.list() ?? [],
    });
  } catch (error) {
    await closeSubgraphs();
    await outside.close();
    throw error;
  }
  let demoFile: string | undefined;
  try {
    if (embedded) {
      stopBackups = await serveBackups(config.dataDir, {
        portal: deps.portal.db,
        pos: deps.pos.db,
        payments: deps.payments.db,
      });
    }
    const shownHost = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
    baseUrl = `http://${shownHost}:${edge.port}`;
    demoFile = await configureAt(baseUrl, config, options, deps, outside);
    background = await startBackgroundWork(deps, bus, {
      pollIntervalMs: config.paymentsPollIntervalMs ?? 5000,
      clock: options.clock,
      ownSyncKeyAt: config.gatewaySync ? undefined : baseUrl,
    });
  } catch (error) {
    await edge.close();
    await closeSubgraphs();
    await outside.close();
    throw error;
  }
  return {
    baseUrl,
    port: edge.port,
    adminUrl: edge.adminUrl,
    sandboxUrl: sandbox.baseUrl,
    acquirerUrl: acquirer?.baseUrl,
    sftpUrl: outside.sftp.baseUrl,
    demoFile,
    portal: deps.portal,
    pos: deps.pos,
    subgraphs,
    internalToken,
    partners: deps.payments.partners,
    payments: deps.payments,
    bus,
    jobs: background.jobs,
    async close() {
      await background.stop();
      await edge.close();
      await bus.close();
      await closeSubgraphs();
      await outside.closeParties();
    },
  };
}
