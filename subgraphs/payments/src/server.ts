// The payments subgraph on its own, for the cluster wiring: PORT, DATABASE_URL, INTERNAL_TOKEN, MASTER_KEY.
import { hostSubgraph, loadSubgraphEnvironment, serveSubgraph, tuneGarbageCollection } from "@pos-cloud/common";
import { openPayments, payments } from "./index";

tuneGarbageCollection();
const config = loadSubgraphEnvironment();
const deps = await openPayments({ url: config.databaseUrl, masterKey: config.masterKey });
const server = await serveSubgraph(hostSubgraph(payments, deps, config.internalToken), {
  port: config.port,
  host: config.host,
});
console.log(`payments subgraph at ${server.url}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await server.close();
    await deps.close();
    process.exit(0);
  });
}
