// The pos subgraph on its own, for the cluster wiring: PORT, DATABASE_URL, INTERNAL_TOKEN, MASTER_KEY, PORTAL_URL.
import {
  guardAgainstDescriptorExhaustion,
  hostSubgraph,
  serveSubgraph,
  tracingFor,
  tuneGarbageCollection,
} from "@pos-cloud/common";
import { loadPosEnvironment } from "./environment";
import { openPos, pos } from "./index";
import { portalClient } from "./modules/stores/portal.client";

guardAgainstDescriptorExhaustion("pos");
tuneGarbageCollection();
const config = loadPosEnvironment();
await tracingFor("pos-cloud-pos", config.otlpEndpoint);
const deps = await openPos({
  url: config.databaseUrl,
  portal: portalClient({ url: config.portalUrl }, config.internalToken),
  gateway: config.gateway,
  masterKey: config.masterKey,
  messages: config.messages,
  offlineSalesWindowHours: config.offlineSalesWindowHours,
});
const server = await serveSubgraph(
  hostSubgraph(pos, deps, config.internalToken),
  {
    port: config.port,
    host: config.host,
  },
  {
    database: () => deps.db.query("SELECT 1"),
  },
);
console.log(`pos subgraph at ${server.url}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await server.close();
    await deps.close();
    process.exit(0);
  });
}
