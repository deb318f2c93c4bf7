import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { hostSubgraph, type SubgraphHost } from "@pos-cloud/common";
import { startEdge } from "@pos-cloud/edge";
import { openPayments, type PartnerService, type PaymentsDeps, payments, sandboxProviders } from "@pos-cloud/payments";
import { openPortal, portal, recordingMessageSender, webhookMessageSender } from "@pos-cloud/portal";
import { openPos, pos } from "@pos-cloud/pos";
import { startEmbeddedSandbox } from "@pos-cloud/sandbox-provider";
import { demoProviders, ensureDemoTenant } from "./demo";
import type { PlatformConfig } from "./environment";
import { loadOrCreateMasterKey } from "./master-key";
import { scheduleKeyRotation } from "./signing-keys";
import { ensureSyncPartner } from "./sync-partner";

export interface RunningPlatform {
  baseUrl: string;
  port: number;
  /** The sandbox QR provider's own address (a listener of its own, like an external provider). */
  sandboxUrl: string;
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
  close(): Promise<void>;
}

/** What only code (tests) can set: a clock to move time for the portal and the edge together. */
export interface PlatformOptions {
  /** Tests move time through it: token lifetimes, key rotation, intent expiry. */
  clock?: () => Date;
}

/** Opens each subgraph's database, applying its migrations; if one fails, the ones already open are closed. */
async function openSubgraphs(
  config: PlatformConfig,
  masterKey: Buffer,
  extras: Pick<Parameters<typeof openPortal>[0], "clock" | "messageSender">,
  publicUrl: () => string | undefined,
) {
  const storage = (url?: string) => ({ url, dataDir: config.dataDir });
  const opened = await Promise.allSettled([
    openPortal({
      ...storage(config.databaseUrls.portal),
      masterKey,
      ...extras,
      publicUrl,
    }),
    openPos(storage(config.databaseUrls.pos)),
    openPayments({
      ...storage(config.databaseUrls.payments),
      masterKey,
      clock: extras.clock,
      webhookRetryDelaysMs: config.webhookRetryDelaysMs,
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

/** The embedded wiring: every subgraph in this process behind one edge, storage in PGlite unless URLs say otherwise. */
export async function startPlatform(config: PlatformConfig, options: PlatformOptions = {}): Promise<RunningPlatform> {
  mkdirSync(config.dataDir, { recursive: true });
  const masterKey = loadOrCreateMasterKey(config.dataDir, config.masterKey);
  const internalToken = randomBytes(32).toString("hex");
  // First, as an external provider is there before the gateway: its address and secrets are known to what follows.
  const sandbox = await startEmbeddedSandbox({
    dataDir: config.dataDir,
    host: config.host,
    processingDelayMs: config.sandboxProcessingDelayMs ?? 0,
  });
  // The public URL is known once the edge listens (the port may be chosen by the system).
  let baseUrl: string | undefined;
  // Without a relay, SMS and e-mail are kept in memory, never sent; a system operator reads them at
  // /api/v1/dev/messages when the mailbox is on.
  const recorded = config.messageWebhook ? undefined : recordingMessageSender();
  const messageSender = recorded ?? webhookMessageSender(config.messageWebhook!.url, config.messageWebhook!.token);
  let deps: Awaited<ReturnType<typeof openSubgraphs>>;
  try {
    deps = await openSubgraphs(config, masterKey, { clock: options.clock, messageSender }, () => baseUrl);
  } catch (error) {
    await sandbox.close();
    throw error;
  }
  let stopKeyRotation = () => {};
  const closeSubgraphs = () => {
    stopKeyRotation();
    return Promise.all([deps.portal.close(), deps.pos.close(), deps.payments.close()]);
  };
  const subgraphs = {
    portal: hostSubgraph(portal, deps.portal, internalToken),
    pos: hostSubgraph(pos, deps.pos, internalToken),
    payments: hostSubgraph(payments, deps.payments, internalToken),
  };
  let edge: Awaited<ReturnType<typeof startEdge>>;
  try {
    edge = await startEdge({
      port: config.port,
      host: config.host,
      internalToken,
      corsOrigins: config.corsOrigins,
      redisUrl: config.redisUrl,
      redisKeyPrefix: config.redisKeyPrefix,
      rateLimits: config.rateLimits,
      graphqlLimits: config.graphqlLimits,
      graphqlSchemaDetails: config.graphqlSchemaDetails,
      clock: options.clock,
      devMessages: config.devMailbox ? recorded?.messages : undefined,
      subgraphs: {
        portal: { host: subgraphs.portal },
        pos: { host: subgraphs.pos },
        payments: { host: subgraphs.payments },
      },
    });
  } catch (error) {
    await closeSubgraphs();
    await sandbox.close();
    throw error;
  }
  let demoFile: string | undefined;
  try {
    stopKeyRotation = await scheduleKeyRotation(deps.portal);
    const shownHost = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
    baseUrl = `http://${shownHost}:${edge.port}`;
    deps.payments.providers.attach({
      providers: sandboxProviders({ baseUrl: sandbox.baseUrl, gatewayBaseUrl: baseUrl }),
      webhookSecrets: { sandbox: sandbox.webhookSecret, "sandbox-poll": sandbox.webhookSecret },
    });
    // The portal syncs every merchant as one client partner: the configured one, else the platform's own POS partner
    // at this platform's gateway.
    const partner = config.gatewaySync ?? (await ensureSyncPartner(deps.payments.partners));
    // This gateway lets that partner alone create merchant and store ids (they are the portal's); a gateway
    // elsewhere designates it at its own start.
    if (!config.gatewaySync?.url) await deps.payments.partners.designateSyncPartner(partner.clientPartnerId);
    deps.portal.gatewaySync.configure({ ...partner, url: config.gatewaySync?.url ?? baseUrl });
    demoFile = config.demo
      ? await ensureDemoTenant(config.dataDir, baseUrl, deps.portal, deps.payments, {
          providers: demoProviders(sandbox),
          partnerId: partner.clientPartnerId,
        })
      : undefined;
  } catch (error) {
    await edge.close();
    await closeSubgraphs();
    await sandbox.close();
    throw error;
  }
  // A full sync now (for tenants changed while the platform was down), then every 15 minutes; not awaited, so
  // start-up does not wait on the gateway. Closing stops it.
  deps.portal.gatewaySync.start();
  const poller = deps.payments.poller.start(config.paymentsPollIntervalMs ?? 5000);
  return {
    baseUrl,
    port: edge.port,
    sandboxUrl: sandbox.baseUrl,
    demoFile,
    portal: deps.portal,
    pos: deps.pos,
    subgraphs,
    internalToken,
    partners: deps.payments.partners,
    payments: deps.payments,
    async close() {
      await deps.portal.gatewaySync.stop();
      await poller.stop();
      await edge.close();
      await closeSubgraphs();
      await sandbox.close();
    },
  };
}
