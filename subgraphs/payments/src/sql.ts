import type { SqlRunner } from "@pos-cloud/common/storage";
import type { Prisma } from "./generated/prisma/client";

/**
 * Runs `Prisma.sql` statements on the database driver itself, prepared once per connection. The create path's
 * statements go this way: through Prisma's client they cost more CPU than the database spent on them
 * (docs/benchmarks.md).
 */
export type PreparedSql = <Row>(statement: Prisma.Sql) => Promise<Row[]>;

export const preparedSql =
  (db: SqlRunner): PreparedSql =>
  (statement) =>
    db.prepared(statement.text, statement.values);
