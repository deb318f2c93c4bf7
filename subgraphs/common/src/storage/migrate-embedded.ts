// The work on embedded databases that runs in a process of its own (subgraph-database.ts). A failure ends it with the
// error's message as its last line.
//   migrate-embedded initdb <dir>                   an empty database cluster in <dir>
//   migrate-embedded migrate <subgraph> <data dir>  the subgraph's pending migrations applied
//   migrate-embedded template                       the installation's empty cluster made if missing (npm ci)
import { embeddedClusterTemplate, initEmbeddedCluster, migrateEmbeddedDatabase } from "./subgraph-database";

const [command, ...args] = process.argv.slice(2);
try {
  if (command === "initdb") await initEmbeddedCluster(args[0]!);
  else if (command === "migrate") await migrateEmbeddedDatabase(args[0]!, args[1]!);
  else if (command === "template") await embeddedClusterTemplate();
  else throw new Error(`unknown command ${command}: initdb <dir> | migrate <subgraph> <data dir> | template`);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
