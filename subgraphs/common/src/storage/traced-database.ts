import { SpanKind } from "@opentelemetry/api";
import { inSpan, tracingOn } from "../tracing";
import type { Database, SqlRunner } from "./sql-runner";

/** One statement as a client span: the Prisma/SQL hop of a trace, its text cut at 500 characters. */
const statement = <T>(sql: string, run: () => Promise<T>) =>
  inSpan(
    "db.query",
    { kind: SpanKind.CLIENT, attributes: { "db.system.name": "postgresql", "db.query.text": sql.slice(0, 500) } },
    run,
  );

const tracedRunner = (runner: SqlRunner): SqlRunner => ({
  exec: (sql) => statement(sql, () => runner.exec(sql)),
  query: (sql, params) => statement(sql, () => runner.query(sql, params)),
  prepared: (sql, params) => statement(sql, () => runner.prepared(sql, params)),
});

/**
 * Prisma's driver adapter (its factory, the adapter it connects, each transaction it starts) with a span per
 * `queryRaw` and `executeRaw`: Prisma's statements reach the database only through them.
 */
function tracedPrisma<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key);
      if (typeof value !== "function") return value;
      if (key === "queryRaw" || key === "executeRaw")
        return (query: { sql: string }) => statement(query.sql, () => value.call(object, query));
      if (key === "connect" || key === "startTransaction")
        return async (...args: unknown[]) => tracedPrisma(await value.apply(object, args));
      return value.bind(object);
    },
  });
}

/** The database with a span per statement while tracing is on; unchanged (no cost) while it is off. */
export function tracedDatabase(db: Database): Database {
  if (!tracingOn()) return db;
  return {
    ...db,
    ...tracedRunner(db),
    adapter: tracedPrisma(db.adapter),
    transaction: (work) => db.transaction((tx) => work(tracedRunner(tx))),
  };
}
