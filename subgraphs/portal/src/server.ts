// The portal subgraph on its own, for the cluster wiring: PORT, DATABASE_URL, INTERNAL_TOKEN, MASTER_KEY.
import { hostSubgraph, loadSubgraphEnvironment, serveSubgraph, tuneGarbageCollection } from "@pos-cloud/common";
import { openPortal, portal } from "./index";

tuneGarbageCollection();
const config = loadSubgraphEnvironment();
const deps = await openPortal({ url: config.databaseUrl, masterKey: config.masterKey });
const server = await serveSubgraph(hostSubgraph(portal, deps, config.internalToken), {
  port: config.port,
  host: config.host,
});
console.log(`portal subgraph at ${server.url}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await server.close();
    await deps.close();
    process.exit(0);
  });
}
