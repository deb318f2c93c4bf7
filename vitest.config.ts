import { createRequire } from "node:module";
import { defineConfig, type TestProjectConfiguration } from "vitest/config";
import { clusterWiring, onPostgres, postgresTestWorkers } from "./tests/support/environment";

const require = createRequire(import.meta.url);

/**
 * What `npm run test:cluster` runs again on PostgreSQL, NATS JetStream and Redis: the tests whose outcome can differ
 * there. Concurrency (row locks, SKIP LOCKED claims, unique races), LISTEN/NOTIFY, the NATS bus, Redis counters and
 * seen signatures, the cluster's processes, and the money flows end to end. Validation, access rules and the REST
 * shapes run the same SQL on either engine and are left to `npm test`, which keeps CI within its budget.
 */
const clusterSuite = [
  // Every test that runs only on these engines (`onPostgres`, `redisUrl`) must be in this list.
  "tests/e2e/{cluster-*,build,readiness,outbox,partner-webhooks,webhook-recovery,subscriptions,observability,platform}.test.ts",
  "tests/e2e/{gateway-replay,gateway-rate-limits,gateway-idempotency,gateway-intents,gateway-sync,payment-flow,platform-key-renewal-processes}.test.ts",
  // POS flows with row locks, claims or Redis counters; the rest (receipts, tips, customers...) run the same SQL.
  "tests/e2e/pos-{payments,refunds,orders-bills,settlements,offline-sales,accounting-export,card-throttled}.test.ts",
  "subgraphs/common/src/{storage,messaging,tasks}/*.test.ts",
  "rest-compat/src/rate-limit.test.ts",
  "subgraphs/payments/src/modules/{outbox,idempotency,confirm,refunds,provider-events,payment-intents,reconciliation,webhooks}/*.test.ts",
  "subgraphs/portal/src/modules/{gateway-sync,tenants,provisioning,users,audit,messages}/*.test.ts",
  "subgraphs/pos/src/**/*.test.ts",
];

/**
 * What `npm run test:e2e:cluster` runs against the cluster's processes: every end-to-end file that starts the platform
 * (the others start what they test themselves, the same under either wiring).
 */
const clusterWiringSuite = {
  include: ["tests/e2e/*.test.ts"],
  exclude: [
    "tests/e2e/{cluster-*,bench-smoke,build,commands,console,observability,payment-intent-store,readiness}.test.ts",
  ],
};

/**
 * The embedded suite's files that run one at a time, after the others: the browser tests, and the files that start
 * `npm start`, a build or the benchmark in processes of their own, which take both cores by themselves.
 */
const alone = ["tests/e2e/{console,console-money,console-overview,commands,bench-smoke,build}.test.ts"];
const generated = ["**/node_modules/**", "**/generated/**"];

/**
 * Two cores: each other embedded file runs the platform in its own process, on one core, so two run at once. On
 * PostgreSQL the databases do the work, and two files share two cores as well.
 */
const embeddedProjects: TestProjectConfiguration[] = [
  {
    extends: true,
    test: {
      name: "embedded",
      include: ["{apps,subgraphs,rest-compat,prisma,schema,tests,sdks}/**/*.test.ts"],
      exclude: [...generated, ...alone],
      maxWorkers: 2,
    },
  },
  { extends: true, test: { name: "alone", include: alone, maxWorkers: 1, sequence: { groupOrder: 1 } } },
];

export default defineConfig({
  // Vite would pick graphql's ESM build while Apollo's CommonJS packages load the CommonJS one; two copies of
  // graphql refuse each other's schemas. Everything uses the one Node itself resolves.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }] },
  test: {
    // Embedded, each project names its own files (a project that extends this config adds to what is here).
    include: !onPostgres ? [] : clusterWiring ? clusterWiringSuite.include : clusterSuite,
    exclude: [...generated, ...(clusterWiring ? clusterWiringSuite.exclude : [])],
    projects: onPostgres ? undefined : embeddedProjects,
    // A cluster's start (nine processes, the demo tenant) and its HTTP hops take longer on a busy machine.
    testTimeout: clusterWiring ? 60_000 : 30_000,
    hookTimeout: clusterWiring ? 180_000 : 60_000,
    // What a test waits for with expect.poll arrives through queues and consumers: on a busy machine, in seconds.
    expect: { poll: { timeout: 15_000 } },
    pool: "forks",
    // Every REST response a test receives is checked against the API reference (tests/support/contract.ts).
    setupFiles: ["tests/support/quiet-logs.ts", "tests/support/contract.ts"],
    // Test files share one process's loaded modules instead of each loading the platform again: a third less time.
    // Every file closes what it starts, so nothing of one is left for the next.
    isolate: false,
    maxWorkers: postgresTestWorkers,
  },
});
