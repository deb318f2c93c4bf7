// Storage (PGlite, PostgreSQL, Prisma adapters, migrations) is a subpath of its own, `@pos-cloud/common/storage`,
// so that what only needs errors, callers or access rules (the edge, the REST layer) does not load it.
export * from "./database";
export * from "./file-modes";
export * from "./migrations";
export * from "./sql-runner";
export * from "./subgraph-database";
