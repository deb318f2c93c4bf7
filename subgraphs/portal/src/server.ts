// The portal subgraph on its own, for the cluster wiring: PORT, DATABASE_URL, INTERNAL_TOKEN, MASTER_KEY, PUBLIC_URL, API_AUDIENCE.
import {
  guardAgainstDescriptorExhaustion,
  hostSubgraph,
  serveSubgraph,
  tracingFor,
  tuneGarbageCollection,
} from "@pos-cloud/common";
import { loadPortalEnvironment } from "./environment";
import { openPortal, portal } from "./index";

guardAgainstDescriptorExhaustion("portal");
tuneGarbageCollection();
const config = loadPortalEnvironment();
await tracingFor("pos-cloud-portal", config.otlpEndpoint);
const deps = await openPortal({
  url: config.databaseUrl,
  masterKey: config.masterKey,
  publicUrl: () => config.publicUrl,
  apiAudience: config.apiAudience,
  messages: config.messages,
});
const server = await serveSubgraph(
  hostSubgraph(portal, deps, config.internalToken),
  {
    port: config.port,
    host: config.host,
  },
  {
    database: () => deps.db.query("SELECT 1"),
  },
);
console.log(`portal subgraph at ${server.url}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await server.close();
    await deps.close();
    process.exit(0);
  });
}
