import { DEFAULT_MAIL_FROM, messageTransport } from "@pos-cloud/common/messages";
import { natsBus } from "@pos-cloud/common/messaging";
import { openPayments } from "@pos-cloud/payments";
import { openPortal } from "@pos-cloud/portal";
import { openPos, portalClient } from "@pos-cloud/pos";
import { readAcquirerSettings } from "@pos-cloud/sandbox-acquirer";
import { readMessageSandboxSettings } from "@pos-cloud/sandbox-messages";
import { readSandboxSettings } from "@pos-cloud/sandbox-provider";
import { type RunningCluster, startCluster } from "../../apps/platform/src/cluster";
import type { ClusterConfig } from "../../apps/platform/src/cluster-environment";
import { loadOrCreateMasterKey } from "../../apps/platform/src/master-key";
import { ensurePlatformKeys } from "../../apps/platform/src/sync-partner";
import { localClusterConfig } from "./cluster";
import { isolatedStorage } from "./databases";
import { subgraphNames, temporaryDirectory } from "./environment";
import type { TestPlatform, TestPlatformOptions } from "./platform-handle";

/** The variables the cluster's processes read for the options a test passes (RATE_LIMIT_*, GRAPHQL_*, ...). */
function processEnvironment(options: TestPlatformOptions): NodeJS.ProcessEnv {
  const variables: Record<string, number | string | number[] | string[] | undefined> = {
    RATE_LIMIT_MERCHANT: options.rateLimits?.merchant,
    RATE_LIMIT_STORE: options.rateLimits?.store,
    RATE_LIMIT_IP: options.rateLimits?.ip,
    RATE_LIMIT_GLOBAL: options.rateLimits?.global,
    RATE_LIMIT_API: options.rateLimits?.api,
    GRAPHQL_MAX_DEPTH: options.graphqlLimits?.maxDepth,
    GRAPHQL_MAX_ALIASES: options.graphqlLimits?.maxAliases,
    GRAPHQL_MAX_TOKENS: options.graphqlLimits?.maxTokens,
    GRAPHQL_MAX_DIRECTIVES: options.graphqlLimits?.maxDirectives,
    GRAPHQL_MAX_COST: options.graphqlLimits?.maxCost,
    GRAPHQL_DEFAULT_PAGE_SIZE: options.graphqlLimits?.defaultPageSize,
    GRAPHQL_TIMEOUT_MS: options.graphqlLimits?.timeoutMs,
    HTTP_HEADERS_TIMEOUT_MS: options.httpTimeouts?.headersMs,
    HTTP_REQUEST_TIMEOUT_MS: options.httpTimeouts?.requestMs,
    HTTP_KEEP_ALIVE_TIMEOUT_MS: options.httpTimeouts?.keepAliveMs,
    GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION: options.graphqlLimits?.maxSubscriptionsPerConnection,
    GRAPHQL_MAX_SUBSCRIPTIONS_PER_CALLER: options.graphqlLimits?.maxSubscriptionsPerCaller,
    GRAPHQL_WS_INIT_TIMEOUT_MS: options.graphqlLimits?.connectionInitTimeoutMs,
    GRAPHQL_WS_IDLE_TIMEOUT_MS: options.graphqlLimits?.idleConnectionMs,
    CONNECTIONS_MAX: options.connectionLimits?.total,
    CONNECTIONS_PER_IP: options.connectionLimits?.perIp,
    CORS_ORIGINS: options.corsOrigins,
    // As the embedded test platform: schema details (introspection, suggestions) only when a test asks for them.
    NODE_ENV: options.graphqlSchemaDetails ? "development" : "production",
    WEBHOOK_TIMEOUT_MS: options.partnerWebhooks?.timeoutMs,
    WEBHOOK_RETRY_DELAYS_MS: options.partnerWebhooks?.retryDelaysMs,
    PROVIDER_NOTIFICATION_RETRY_DELAYS_MS: options.webhookRetryDelaysMs,
  };
  return Object.fromEntries(
    Object.entries(variables)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, Array.isArray(value) ? value.join(",") : String(value)]),
  );
}

/**
 * The services a test drives besides HTTP (tokens, partner keys, one poll cycle, dead letters), opened in the test
 * process on the cluster's databases and NATS namespace, as an operator's command would: clients of the same data,
 * with no background work of their own.
 */
async function openServices(config: ClusterConfig, cluster: RunningCluster, options: TestPlatformOptions) {
  const masterKey = loadOrCreateMasterKey(config.dataDir);
  // Mail and SMS through the cluster's sandboxes, as its processes send them.
  const sandboxes = readMessageSandboxSettings(config.dataDir)!;
  const transport = messageTransport({
    smtpUrl: sandboxes.smtpUrl,
    mailFrom: DEFAULT_MAIL_FROM,
    sms: { url: sandboxes.smsUrl, secret: sandboxes.smsSecret },
  });
  const messages = { transport, retryDelaysMs: options.messageRetryDelaysMs };
  const portal = await openPortal({
    url: config.databaseUrls.portal,
    masterKey,
    publicUrl: () => cluster.baseUrl,
    messages,
  });
  const payments = await openPayments({
    url: config.databaseUrls.payments,
    masterKey,
    webhookRetryDelaysMs: options.webhookRetryDelaysMs,
    partnerWebhooks: options.partnerWebhooks,
  });
  const sandbox = readSandboxSettings(config.dataDir)!;
  await payments.providers.configure(undefined, {
    gatewayUrl: cluster.baseUrl,
    sandbox: { baseUrl: sandbox.baseUrl!, webhookSecret: sandbox.webhookSecret },
  });
  const pos = await openPos({
    url: config.databaseUrls.pos,
    masterKey,
    portal: portalClient({ url: `http://127.0.0.1:${config.ports.portal}/` }, cluster.internalToken),
    messages,
  });
  const keys = await ensurePlatformKeys(payments.partners);
  await pos.gateway.configure({ ...keys.pos, url: cluster.baseUrl });
  // A fixture store that sells is pushed to the gateway and waited for, as the demo store is.
  portal.gatewaySync.configure({ ...keys.sync, url: cluster.baseUrl });
  pos.cardExchange.configure({ url: readAcquirerSettings(config.dataDir)!.ftpUrl });
  const bus = await natsBus(config.nats);
  return {
    portal,
    payments,
    pos,
    bus,
    close: async () => {
      await bus.close();
      await Promise.all([portal.close(), payments.close(), pos.close()]);
      transport.close();
    },
  };
}

/**
 * `startTestPlatform` under TEST_WIRING=cluster: `startCluster`'s processes (2 edge instances, each subgraph over
 * HTTP, 1 worker, the sandbox) from the build in `dist/`, on fresh PostgreSQL databases, a NATS namespace and a
 * Redis prefix of their own.
 */
export async function startClusterTestPlatform(options: TestPlatformOptions): Promise<TestPlatform> {
  const dir = temporaryDirectory("pos-cloud-cluster-");
  const databases = await isolatedStorage([...subgraphNames]);
  const defaults = await localClusterConfig({
    dataDir: dir.path,
    databaseUrls: databases.urls as ClusterConfig["databaseUrls"],
    demo: options.demo ?? true,
    allowPrivateWebhookUrls: options.partnerWebhooks?.allowPrivateUrls ?? false,
    paymentsPollIntervalMs: options.paymentsPollIntervalMs ?? 5000,
  });
  const config: ClusterConfig = {
    ...defaults,
    redis: { ...defaults.redis, keyPrefix: options.redisKeyPrefix ?? defaults.redis.keyPrefix },
  };
  const environment = processEnvironment(options);
  const start = async () => {
    // The processes' lines are shown only when the cluster or a test fails (held with the test's own log lines,
    // tests/support/quiet-logs.ts): a passing file prints nothing, a failing test shows what every process said.
    const output: string[] = [];
    const cluster = await startCluster(config, {
      compiled: true,
      environment,
      output: (line) => {
        output.push(line);
        process.stdout.write(`${line}\n`);
      },
      onFailure: (reason) => console.error(`${reason}\n${output.join("\n")}`),
    }).catch((error: unknown) => {
      console.error(output.join("\n"));
      throw error;
    });
    return { cluster, services: await openServices(config, cluster, options) };
  };
  let running: Awaited<ReturnType<typeof start>> | undefined = await start();
  const handle: TestPlatform = {
    baseUrl: running.cluster.baseUrl,
    adminUrl: running.cluster.adminUrl,
    dataDir: dir.path,
    portal: running.services.portal,
    partners: running.services.payments.partners,
    config: {
      port: config.port,
      host: config.host,
      admin: { port: config.ports.admin, host: config.adminHost ?? "127.0.0.1" },
      dataDir: dir.path,
      demo: config.demo,
      databaseUrls: config.databaseUrls,
    },
    payments: running.services.payments,
    pos: running.services.pos,
    bus: running.services.bus,
    async stop() {
      await running?.services.close();
      await running?.cluster.close();
      running = undefined;
    },
    async restart() {
      running = await start();
      handle.adminUrl = running.cluster.adminUrl;
      handle.portal = running.services.portal;
      handle.partners = running.services.payments.partners;
      handle.payments = running.services.payments;
      handle.pos = running.services.pos;
      handle.bus = running.services.bus;
    },
    async close() {
      await handle.stop();
      await databases.drop();
      dir.remove();
    },
  };
  return handle;
}
