import { createHash, randomUUID } from "node:crypto";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The one place tests read the environment. `npm run test:cluster` sets TEST_POSTGRES_URL; then every test that
 * needs storage gets PostgreSQL databases (one per subgraph) instead of embedded PGlite.
 */
const postgresBase = process.env.TEST_POSTGRES_URL;

export const onPostgres = postgresBase !== undefined;

/**
 * `npm run test:e2e:cluster` sets TEST_WIRING=cluster (with TEST_POSTGRES_URL): `startTestPlatform` starts the
 * cluster's processes over HTTP instead of the embedded platform in the test's process.
 */
export const clusterWiring = process.env.TEST_WIRING === "cluster";
if (clusterWiring && !onPostgres) throw new Error("TEST_WIRING=cluster runs on PostgreSQL: set TEST_POSTGRES_URL");

/** The cluster suite's Redis (rate-limit counters); the embedded suite has none. */
export const redisUrl = onPostgres ? (process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379") : undefined;

export const subgraphNames = ["portal", "pos", "payments"] as const;
export type SubgraphName = (typeof subgraphNames)[number];

/**
 * Test files run this many at a time on PostgreSQL. Each worker has databases of its own, so one file's background
 * work never claims another's rows.
 */
export const postgresTestWorkers = 2;

/**
 * The shared databases' name prefix: TEST_DATABASE_PREFIX lets two checkouts run the cluster suite on one PostgreSQL
 * server at once without dropping each other's databases.
 */
const testDatabasePrefix = process.env.TEST_DATABASE_PREFIX ?? "pos_cloud_test";

/** The shared database of a subgraph for tests run by vitest worker `worker` (this process's by default). */
export function sharedTestDatabase(subgraph: SubgraphName, worker = process.env.VITEST_POOL_ID ?? "1"): string {
  return `${testDatabasePrefix}_${subgraph}_w${worker}`;
}

export function postgresUrl(subgraph: SubgraphName): string | undefined {
  return postgresBase ? `${postgresBase.replace(/\/$/, "")}/${sharedTestDatabase(subgraph)}` : undefined;
}

/**
 * Storage for one subgraph under test: PostgreSQL in the cluster suite (a database the test files of a vitest worker
 * share), in-memory PGlite otherwise; with the master key of that storage, one for every file as one deployment has
 * one, since opening a database checks its secrets against the key.
 */
export function testStorage(subgraph: SubgraphName) {
  return { url: postgresUrl(subgraph), masterKey: sharedStorageMasterKey };
}

const sharedStorageMasterKey = createHash("sha256").update("pos-cloud shared test storage").digest();

/**
 * Where tests keep files: memory (`/dev/shm`) where the machine has it. Each embedded platform starts from a copy of
 * 118 MB of migrated PGlite databases; on this machine's disk that copy took 2.4 s of a 5 s start, in memory 0.15 s.
 */
export const scratchRoot = (() => {
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
})();

/** A fresh directory that is removed when the returned function is called. */
export function temporaryDirectory(prefix = "pos-cloud-"): { path: string; remove(): void } {
  const path = mkdtempSync(join(scratchRoot, prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export const uniqueCode = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8).toUpperCase()}`;

/** NATS JetStream for the message bus tests: TEST_NATS_URL, else the server on this machine. */
export const natsUrl = process.env.TEST_NATS_URL ?? "nats://127.0.0.1:4222";
