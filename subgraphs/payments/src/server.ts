// The payments subgraph on its own, for the cluster wiring: PORT, DATABASE_URL, INTERNAL_TOKEN, MASTER_KEY, and
// SANDBOX_URL, SANDBOX_WEBHOOK_SECRET, GATEWAY_URL, WEBHOOK_ALLOW_PRIVATE_URLS (src/environment.ts).
import {
  guardAgainstDescriptorExhaustion,
  hostSubgraph,
  serveSubgraph,
  tracingFor,
  tuneGarbageCollection,
} from "@pos-cloud/common";
import { loadPaymentsEnvironment } from "./environment";
import { openPayments, payments } from "./index";

guardAgainstDescriptorExhaustion("payments");
tuneGarbageCollection();
const config = loadPaymentsEnvironment();
await tracingFor("pos-cloud-payments", config.otlpEndpoint);
const deps = await openPayments({
  url: config.databaseUrl,
  masterKey: config.masterKey,
  partnerWebhooks: config.partnerWebhooks,
  webhookRetryDelaysMs: config.webhookRetryDelaysMs,
  apiKeyLifetimeDays: config.apiKeyLifetimeDays,
});
await deps.providers.configure(config.paymentProviders, {
  gatewayUrl: config.gatewayUrl ?? "",
  sandbox: config.sandbox,
});
const server = await serveSubgraph(
  hostSubgraph(payments, deps, config.internalToken),
  {
    port: config.port,
    host: config.host,
  },
  {
    database: () => deps.db.query("SELECT 1"),
  },
);
console.log(`payments subgraph at ${server.url}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await server.close();
    await deps.close();
    process.exit(0);
  });
}
