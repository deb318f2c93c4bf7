// The boundaries the code keeps, checked by `npm run deps` (part of `npm test`): the edge without storage, subgraphs
// apart, and inside a subgraph resolvers -> service -> repository, a module's repository private to it.

const tests = "(\\.test\\.ts$|^tests/|^bench/)";
const storageCode =
  "^subgraphs/common/src/storage/|node_modules/(@electric-sql/pglite|pg|pglite-prisma-adapter|@prisma)/";
const moduleFile = "^subgraphs/([^/]+)/src/modules/([^/]+)/";

/**
 * Shared sinks: the audit log, the outbox and the gateway sync's outbox are appended to inside the caller's own
 * transaction, by every module that changes state; they have no rules of their own for a service to hold.
 */
const sharedRepositories = [
  "^subgraphs/portal/src/modules/audit/audit\\.repository\\.ts$",
  "^subgraphs/portal/src/modules/gateway-sync/sync-outbox\\.repository\\.ts$",
  "^subgraphs/payments/src/modules/outbox/outbox\\.repository\\.ts$",
];

/**
 * Files that still reach another module's repository: `module` (`<subgraph>/<module>`), the `files` in it, and the
 * repositories they may reach. Each is a refactor of its own (the other module's service grows the read or the
 * transaction it needs); until then the list keeps the debt visible and stops it from growing.
 */
const repositoryExceptions = [
  // Authentication reads and updates user rows (failed attempts, lockouts, MFA state) directly.
  { module: "portal/auth", files: "(auth|mfa|session)\\.service", to: ["users/user"] },
  // Users and areas read tenants (and users read areas) through their repositories; the tenant and area services
  // should offer these reads.
  { module: "portal/users", files: "user\\.service", to: ["areas/area", "tenants/tenant"] },
  { module: "portal/areas", files: "area\\.service", to: ["tenants/tenant"] },
  // SQL helpers that live in the tenant and area repositories (`uniqueCode`, `run`, `storeScopeSql`, `isUuid`); they
  // belong beside `deviceScope` in tenants/scope.ts.
  { module: "portal/app-updates", files: "app-update\\.repository", to: ["tenants/tenant"] },
  { module: "portal/devices", files: "device\\.repository", to: ["tenants/tenant", "areas/area"] },
  // Device tokens and provisioning read and move devices through the device repository.
  { module: "portal/device-tokens", files: "device-token\\.service", to: ["devices/device"] },
  { module: "portal/provisioning", files: "provisioning\\.service", to: ["devices/device"] },
  // A payment's state transition, its ledger entry and a late refund are written in one transaction: the
  // repositories share `transitionWithin` and the ledger's writers until a unit of work spans modules.
  { module: "payments/payment-intents", files: "payment-intent\\.repository", to: ["ledger/transaction"] },
  { module: "payments/confirm", files: "confirm\\.repository", to: ["payment-intents/payment-intent"] },
  {
    module: "payments/refunds",
    files: "refund\\.repository",
    to: ["payment-intents/payment-intent", "ledger/transaction"],
  },
  {
    module: "payments/provider-events",
    files: "provider-event\\.repository",
    to: ["payment-intents/payment-intent", "refunds/refund"],
  },
];

/** `portal/auth` -> the path of that module's folder. */
const modulePath = (owner) => `^subgraphs/${owner.replace("/", "/src/modules/")}/`;
/** `portal/auth` and `users/user` -> the path of `subgraphs/portal/src/modules/users/user.repository.ts`. */
const repositoryPath = (owner, file) => `^subgraphs/${owner.split("/")[0]}/src/modules/${file}\\.repository\\.ts$`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "edge-without-storage",
      comment:
        "The edge and the REST layer get errors, callers and access rules from @pos-cloud/common; storage (PGlite, pg, Prisma adapters, migrations) is @pos-cloud/common/storage, for subgraphs and the platform only.",
      severity: "error",
      from: { path: "^(apps/edge|rest-compat)/", pathNot: tests },
      to: { path: storageCode, reachable: true },
    },
    {
      name: "common-light-part-without-storage",
      comment: "@pos-cloud/common (everything outside src/storage/) must not load storage.",
      severity: "error",
      from: { path: "^subgraphs/common/src/[^/]+\\.ts$", pathNot: tests },
      to: { path: storageCode, reachable: true },
    },
    {
      name: "subgraph-to-other-subgraph",
      comment: "A subgraph owns its data; it reaches another subgraph only through the graph (entity references).",
      severity: "error",
      from: { path: "^subgraphs/([^/]+)/", pathNot: tests },
      to: { path: "^subgraphs/", pathNot: "^subgraphs/($1|common)/" },
    },
    {
      name: "subgraph-to-app",
      comment: "Subgraphs are libraries the apps wire; they do not import the apps or the REST layer.",
      severity: "error",
      from: { path: "^subgraphs/", pathNot: tests },
      to: { path: "^(apps|rest-compat)/" },
    },
    {
      name: "resolvers-call-services",
      comment: "Resolvers stay thin: they call services, which hold the rules; repositories are for services.",
      severity: "error",
      from: { path: `${moduleFile}resolvers\\.ts$` },
      to: { path: "\\.repository\\.ts$" },
    },
    {
      name: "module-resolvers-private",
      comment: "A module's resolvers are wired by its subgraph's index, not imported by other modules.",
      severity: "error",
      from: { path: moduleFile, pathNot: tests },
      to: { path: "^subgraphs/$1/src/modules/(?!$2/)[^/]+/resolvers\\.ts$" },
    },
    {
      name: "module-repository-private",
      comment:
        "A module reaches another module's data only through that module's service: repositories are private to their module.",
      severity: "error",
      from: {
        path: moduleFile,
        pathNot: [
          tests,
          ...repositoryExceptions.map((exception) => `${modulePath(exception.module)}${exception.files}\\.ts$`),
        ],
      },
      to: { path: "^subgraphs/$1/src/modules/(?!$2/)[^/]+/[^/]+\\.repository\\.ts$", pathNot: sharedRepositories },
    },
    ...repositoryExceptions.map((exception) => ({
      name: "module-repository-private",
      comment: "The same rule for files with a listed exception: only the listed repositories.",
      severity: "error",
      from: { path: `${modulePath(exception.module)}${exception.files}\\.ts$` },
      to: {
        path: "^subgraphs/[^/]+/src/modules/[^/]+/[^/]+\\.repository\\.ts$",
        pathNot: [
          modulePath(exception.module),
          ...sharedRepositories,
          ...exception.to.map((file) => repositoryPath(exception.module, file)),
        ],
      },
    })),
    {
      name: "no-circular",
      comment: "Modules form a tree; a cycle makes load order and ownership unclear.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(generated|dist)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json"],
    },
    skipAnalysisNotInRules: true,
  },
};
