import { join } from "node:path";
import { logger } from "../logger";
import { repositoryRoot } from "../repository-root";
import { openDatabase } from "./database";
import { applyMigrations, readMigrations } from "./migrations";
import type { Database } from "./sql-runner";

export interface StorageOptions {
  /** `postgresql://...`; when absent the subgraph keeps its data in embedded PGlite. */
  url?: string;
  /** Where embedded PGlite keeps its files (`<dataDir>/<subgraph>`); in memory when absent. */
  dataDir?: string;
}

/** Opens a subgraph's own database and brings it to its newest migration before anything else touches it. */
export async function openSubgraphDatabase(subgraph: string, options: StorageOptions): Promise<Database> {
  const db = await openDatabase({ url: options.url, dataDir: options.dataDir && join(options.dataDir, subgraph) });
  try {
    const applied = await applyMigrations(db, readMigrations(join(repositoryRoot, "prisma", subgraph, "migrations")));
    if (applied.length > 0) logger.info("migrations applied", { subgraph, applied });
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
