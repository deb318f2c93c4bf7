// A subgraph's pending migrations applied to its embedded database, in a process of its own (subgraph-database.ts):
// node migrate-embedded <subgraph> <data dir>. A failure ends it with the error's message as its last line.
import { migrateEmbeddedDatabase } from "./subgraph-database";

const [subgraph, dataDir] = process.argv.slice(2);
try {
  await migrateEmbeddedDatabase(subgraph!, dataDir!);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
