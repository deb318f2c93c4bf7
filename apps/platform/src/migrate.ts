// npm run db:migrate: brings every subgraph's database (PGlite under DATA_DIR, or DATABASE_URL_<SUBGRAPH>) to its
// newest migration, without starting the platform.
import { MigrationError, openSubgraphDatabase } from "@pos-cloud/common/storage";
import { loadEnvironment } from "./environment";

const config = loadEnvironment();
for (const subgraph of ["portal", "pos", "payments"] as const) {
  try {
    const db = await openSubgraphDatabase(subgraph, { url: config.databaseUrls[subgraph], dataDir: config.dataDir });
    await db.close();
    console.log(`${subgraph}: up to date`);
  } catch (error) {
    console.error(error instanceof MigrationError ? `${subgraph}: ${error.message}; nothing was changed` : error);
    process.exit(1);
  }
}
