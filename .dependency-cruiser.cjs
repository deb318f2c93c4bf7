// The boundaries the code keeps, checked by `npm run deps` (part of `npm test`): the edge without storage, subgraphs
// apart, and inside a subgraph resolvers -> service -> repository, a module reached only through its face (index.ts).

const tests = "(\\.test\\.ts$|^tests/|^bench/)";
const storageCode =
  "^subgraphs/common/src/storage/|node_modules/(@electric-sql/pglite|pg|pglite-prisma-adapter|@prisma)/";
const moduleFile = "^subgraphs/([^/]+)/src/modules/([^/]+)/";

/**
 * Shared sinks, the only repositories another module imports (module-face): the audit log, the payments outbox, the
 * ledger, the gateway sync's outbox and the session revocations are appended to inside the caller's own transaction,
 * by every module that changes state, and the intent's transition moves an intent there for a confirm, a refund or a
 * provider's outcome; they have no rules of their own for a service to hold.
 */
const sharedRepositories = [
  "^subgraphs/portal/src/modules/audit/audit\\.repository\\.ts$",
  "^subgraphs/portal/src/modules/gateway-sync/sync-outbox\\.repository\\.ts$",
  "^subgraphs/portal/src/modules/revocations/session-revocations\\.repository\\.ts$",
  "^subgraphs/payments/src/modules/outbox/outbox\\.repository\\.ts$",
  "^subgraphs/payments/src/modules/ledger/transaction\\.repository\\.ts$",
  "^subgraphs/payments/src/modules/payment-intents/payment-intent-transition\\.repository\\.ts$",
];

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
      name: "sdk-without-platform",
      comment:
        "The SDKs are for outside businesses: they reach the platform over HTTP only, typed from its generated OpenAPI types, and import none of its code.",
      severity: "error",
      from: { path: "^sdks/[^/]+/(src|examples)/", pathNot: tests },
      to: { path: "^(apps|subgraphs|rest-compat|schema|prisma|tests|bench)/" },
    },
    {
      name: "subgraph-to-app",
      comment: "Subgraphs are libraries the apps wire; they do not import the apps or the REST layer.",
      severity: "error",
      from: { path: "^subgraphs/", pathNot: tests },
      to: { path: "^(apps|rest-compat)/" },
    },
    {
      name: "sdk-without-platform",
      comment:
        "An SDK is shipped to terminals and partners on its own: it reaches the platform over HTTP and WebSocket, never by importing its code.",
      severity: "error",
      from: { path: "^sdks/[^/]+/src/", pathNot: tests },
      to: { path: "^(apps|subgraphs|rest-compat|schema|prisma|tests|bench)/" },
    },
    {
      name: "sdk-web-apis-only",
      comment:
        "The terminal SDK runs in browsers and web views as in Node: fetch, WebCrypto and WebSocket, no Node built-ins (but in `src/node/`, its `@pos-cloud/terminal-sdk/node` export: the offline queue's file store).",
      severity: "error",
      from: { path: "^sdks/terminal/src/", pathNot: [tests, "^sdks/terminal/src/node/"] },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "shipped-code-without-test-support",
      comment:
        "What the workspaces ship holds no test code: the test support (clocks, seeded partners, scripted providers) is the workspace package @pos-cloud/test-support under tests/, imported by tests and benchmarks only.",
      severity: "error",
      from: { path: "^(apps|subgraphs|rest-compat|sdks|schema|prisma)/", pathNot: tests },
      to: { path: "^tests/" },
    },
    {
      name: "resolvers-call-services",
      comment: "Resolvers stay thin: they call services, which hold the rules; repositories are for services.",
      severity: "error",
      from: { path: `${moduleFile}resolvers\\.ts$` },
      to: { path: "\\.repository\\.ts$" },
    },
    {
      name: "module-face",
      comment:
        "A module is used through its face, its index.ts (services, types, machines): another module, its tests included, imports nothing else of it, so its other files can change freely. Two exceptions: the shared sinks (sharedRepositories), and the inputs below.",
      severity: "error",
      from: { path: moduleFile, pathNot: "\\.inputs\\.ts$" },
      to: {
        path: "^subgraphs/$1/src/modules/(?!$2/)[^/]+/",
        pathNot: ["^subgraphs/$1/src/modules/[^/]+/index\\.ts$", ...sharedRepositories],
      },
    },
    {
      name: "module-face-inputs",
      comment:
        "A module's inputs are the edge's request schemas, loaded without storage: they may build on another module's inputs (a business date, a table number) directly, where its index would load its services.",
      severity: "error",
      from: { path: `${moduleFile}[^/]+\\.inputs\\.ts$` },
      to: {
        path: "^subgraphs/$1/src/modules/(?!$2/)[^/]+/",
        pathNot: "^subgraphs/$1/src/modules/[^/]+/[^/]+\\.inputs\\.ts$",
      },
    },
    {
      name: "module-face-contents",
      comment:
        "A face offers services, types and machines: never a repository (data is reached through a service), never resolvers (the subgraph's index wires them).",
      severity: "error",
      from: { path: `${moduleFile}index\\.ts$` },
      to: { path: "(\\.repository|/resolvers)\\.ts$" },
    },
    {
      name: "provider-adapters",
      comment:
        'A payment provider is one folder under providers/ (CONTRIBUTING.md, "A new payment provider"): only providers/ reaches an adapter folder (the directory loads it by the configured name), so adding one edits nothing else. Tests included: they build adapters from configuration.',
      severity: "error",
      from: { pathNot: "^subgraphs/payments/src/modules/providers/" },
      to: { path: "^subgraphs/payments/src/modules/providers/[^/]+/" },
    },
    {
      name: "provider-adapters-apart",
      comment: "An adapter folder does not reach into another one: what two adapters share lives in providers/ itself.",
      severity: "error",
      from: { path: "^subgraphs/payments/src/modules/providers/([^/]+)/" },
      to: {
        path: "^subgraphs/payments/src/modules/providers/[^/]+/",
        pathNot: "^subgraphs/payments/src/modules/providers/$1/",
      },
    },
    {
      name: "repository-without-services",
      comment:
        "A repository holds data access only: the rules it would need from a service belong in its own module's service, which composes the transaction.",
      severity: "error",
      from: { path: "\\.repository\\.ts$", pathNot: tests },
      to: { path: "\\.service\\.ts$" },
    },
    {
      name: "service-without-re-exports",
      comment:
        "A service does not re-export a repository's functions or types for its face to offer past module-face-contents: it offers its own.",
      severity: "error",
      from: { path: "\\.service\\.ts$", pathNot: tests },
      to: { path: "\\.repository\\.ts$", dependencyTypes: ["export"] },
    },
    {
      name: "no-unresolvable",
      comment:
        "Every import resolves (.tsx included): an unresolved one is invisible to every other rule, as the console's Layout.tsx <-> routes.tsx cycle was.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
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
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
    skipAnalysisNotInRules: true,
  },
};
