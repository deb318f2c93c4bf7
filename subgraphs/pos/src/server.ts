// The pos subgraph on its own, for the cluster wiring: PORT, DATABASE_URL, INTERNAL_TOKEN, MASTER_KEY.
import { hostSubgraph, loadSubgraphEnvironment, serveSubgraph, tuneGarbageCollection } from "@pos-cloud/common";
import { openPos, pos } from "./index";

tuneGarbageCollection();
const config = loadSubgraphEnvironment();
const deps = await openPos({ url: config.databaseUrl });
const server = await serveSubgraph(hostSubgraph(pos, deps, config.internalToken), {
  port: config.port,
  host: config.host,
});
console.log(`pos subgraph at ${server.url}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await server.close();
    await deps.close();
    process.exit(0);
  });
}
