import { existsSync } from "node:fs";
import { join } from "node:path";
import { logger } from "../logger";
import { repositoryRoot } from "../repository-root";
import { openDatabase } from "./database";
import { applyMigrations, readMigrations } from "./migrations";
import type { Database } from "./sql-runner";

export interface StorageOptions {
  /** `postgresql://...`; when absent the subgraph keeps its data in embedded PGlite. */
  url?: string;
  /** Where embedded PGlite keeps its files (`embeddedDatabaseDir`); in memory when absent. */
  dataDir?: string;
}

/** The one embedded database of a data directory; each subgraph's tables are in the schema named after it. */
export const embeddedDatabaseDir = (dataDir: string) => join(dataDir, "pglite");

export class EarlierStorageLayoutError extends Error {
  constructor(dataDir: string) {
    super(
      `${dataDir} holds an embedded database per subgraph, as the platform kept them before one database held all ` +
        "three. Start with another DATA_DIR, or move this one aside (its demo tenant is made again).",
    );
    this.name = "EarlierStorageLayoutError";
  }
}

/** Opens a subgraph's own database and brings it to its newest migration before anything else touches it. */
export async function openSubgraphDatabase(subgraph: string, options: StorageOptions): Promise<Database> {
  const { url, dataDir } = options;
  if (!url && dataDir && existsSync(join(dataDir, subgraph, "PG_VERSION")))
    throw new EarlierStorageLayoutError(dataDir);
  const db = await openDatabase({ url, dataDir: dataDir && embeddedDatabaseDir(dataDir), schema: subgraph });
  try {
    const applied = await applyMigrations(db, readMigrations(join(repositoryRoot, "prisma", subgraph, "migrations")));
    if (applied.length > 0) logger.info("migrations applied", { subgraph, applied });
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
