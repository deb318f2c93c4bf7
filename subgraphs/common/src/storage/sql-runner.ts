import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";

/** Raw SQL access, for what Prisma does not do: migrations, `FOR UPDATE SKIP LOCKED` claims, benchmarks. */
export interface SqlRunner {
  /** Runs a script of one or more statements without parameters. */
  exec(sql: string): Promise<void>;
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  /**
   * The same, as a statement PostgreSQL parses and plans once per connection (PGlite runs it as `query` does):
   * for the hot path's statements, whose text is the same on every call.
   */
  prepared<Row>(sql: string, params: unknown[]): Promise<Row[]>;
}

/** A statement built with `Prisma.sql` (any generated client's): its text and its parameters. */
export interface SqlStatement {
  text: string;
  values: unknown[];
}

/**
 * Runs `Prisma.sql` statements on the database driver itself, prepared once per connection. Hot-path statements go
 * this way: through Prisma's client they cost more CPU than the database spent on them (docs/benchmarks.md).
 */
export type PreparedSql = <Row>(statement: SqlStatement) => Promise<Row[]>;

export const preparedSql =
  (db: SqlRunner): PreparedSql =>
  (statement) =>
    db.prepared(statement.text, statement.values);

export interface Database extends SqlRunner {
  kind: "pglite" | "postgres";
  /** What a generated PrismaClient takes as `adapter`. */
  adapter: SqlMigrationAwareDriverAdapterFactory;
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotify` after each commit that ran `NOTIFY channel` (a trigger, usually), until the returned stop. A
   * lost PostgreSQL connection is reopened; notifications sent meanwhile are lost, so listeners poll as well.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /** Embedded only: the database's files as a gzipped tarball, between two statements (PGlite's `dumpDataDir`). */
  dump?(): Promise<Uint8Array>;
  close(): Promise<void>;
}
