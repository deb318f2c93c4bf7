import { empty, raw, type Sql, sqltag as sql } from "@prisma/client/runtime/client";
import { Counter, Gauge } from "prom-client";
import { logger } from "../logger";
import { metrics } from "../metrics";
import type { SqlRunner } from "../storage";
import type { RetryPolicy, TaskKind } from "./task-policies";

/*
 * The one durable task queue: every kind of background work waits as rows of its own module's table, and this file
 * is the only place that claims them (`FOR UPDATE SKIP LOCKED`: rows another process holds are passed over, not
 * waited for), decides the next attempt by the kind's retry policy (`task-policies.ts`) and counts what happened
 * (`pgw_task_*`). Like Hyperswitch's process tracker, but the rows stay where their module keeps them.
 */

/** Where a kind's tasks wait: its table and the columns the queue reads. */
export interface TaskTable {
  kind: TaskKind;
  table: string;
  /** The column naming a row. */
  key: string;
  /** When the row is next due. */
  due: string;
  /** A column of its own holding a claim until a time; without it, a claim pushes `due` to the lease's end. */
  lockedUntil?: string;
  /** The claim's order; oldest due first when not given. */
  order?: string;
}

/** Runs a statement: a generated Prisma client's (or transaction's) `$queryRaw`, or a `SqlRunner` (`onRunner`). */
export type RunSql = <Row>(statement: Sql) => PromiseLike<Row[]>;

export const onRunner =
  (db: SqlRunner): RunSql =>
  (statement) =>
    db.query(statement.text, statement.values);

export const onPrisma =
  (prisma: { $queryRaw<T>(statement: Sql): PromiseLike<T> }): RunSql =>
  (statement) =>
    prisma.$queryRaw(statement);

export const taskMetrics = {
  claimed: new Counter({
    name: "pgw_task_claims_total",
    help: "Tasks claimed by a process (leased or locked for a transaction), by kind.",
    labelNames: ["kind"] as const,
    registers: [metrics],
  }),
  outcomes: new Counter({
    name: "pgw_task_outcomes_total",
    help: "Task attempts by kind and outcome: done, retried (failed, due again later), dead (no more attempts).",
    labelNames: ["kind", "outcome"] as const,
    registers: [metrics],
  }),
};

/** What the task gauges count of a kind: its table, the rows that are its tasks and those given up on. */
export interface TaskCensus {
  table: TaskTable;
  /** The rows still to be done: due now, later, or under a claim's lease; columns unqualified. */
  pending: Sql;
  /** The rows no more attempts are made at, kept for a person; a kind without one never gives up. */
  dead?: Sql;
}

interface Watched {
  run: RunSql;
  censuses: TaskCensus[];
  clock: () => Date;
}

const watched = new Set<Watched>();

/** One statement counting a census's due, running (only with a lock column) and dead rows. */
function countStatement({ table, pending, dead }: TaskCensus, now: Date) {
  const name = raw(table.table);
  const due = raw(table.due);
  const held = table.lockedUntil ? raw(table.lockedUntil) : undefined;
  const free = held ? sql`AND (${held} IS NULL OR ${held} <= ${now})` : empty;
  const running = held ? sql`(SELECT count(*) FROM ${name} WHERE (${pending}) AND ${held} > ${now})` : sql`NULL`;
  const given = dead ? sql`(SELECT count(*) FROM ${name} WHERE ${dead})` : sql`NULL`;
  return sql`SELECT (SELECT count(*) FROM ${name} WHERE (${pending}) AND ${due} <= ${now} ${free}) AS due,
    ${running} AS running, ${given} AS dead`;
}

type Count = number | bigint | string | null;

async function countWatched(set: (kind: TaskKind, state: string, value: number) => void) {
  const totals = new Map<string, { kind: TaskKind; state: string; value: number }>();
  for (const { run, censuses, clock } of watched) {
    for (const census of censuses) {
      try {
        const [row] = await run<Record<"due" | "running" | "dead", Count>>(countStatement(census, clock()));
        for (const [state, value] of Object.entries(row ?? {})) {
          if (value === null) continue;
          const id = `${census.table.kind}/${state}`;
          const total = totals.get(id) ?? { kind: census.table.kind, state, value: 0 };
          totals.set(id, { ...total, value: total.value + Number(value) });
        }
      } catch (error) {
        logger.warn("counting tasks failed", { kind: census.table.kind, error });
      }
    }
  }
  for (const { kind, state, value } of totals.values()) set(kind, state, value);
}

/** Counted at each scrape, from the tables `watchTasks` names. */
export const taskGauge = new Gauge({
  name: "pgw_tasks",
  help: "Tasks by kind and state: due (may be claimed now), running (under a claim's lease, for kinds that hold it in a column of its own), dead (no more attempts).",
  labelNames: ["kind", "state"] as const,
  registers: [metrics],
  async collect() {
    this.reset();
    await countWatched((kind, state, value) => this.set({ kind, state }, value));
  },
});

/** Has the task gauges count these kinds' rows on `run`'s database at each scrape, until the returned stop. */
export function watchTasks(run: RunSql, censuses: TaskCensus[], clock: () => Date = () => new Date()): () => void {
  const entry = { run, censuses, clock };
  watched.add(entry);
  return () => watched.delete(entry);
}

export interface Lease {
  /** Which rows are tasks at all (`status = 'pending'`); columns unqualified. */
  where: Sql;
  now: Date;
  /** Until when the claimed rows are this process's: a process that dies gives them back then. */
  leaseUntil: Date;
  limit: number;
  /** The columns returned, of `task` (the row) and `claimed.due_at` (when it was due); `task.*` when not given. */
  returning?: Sql;
}

/**
 * Claims up to `limit` due rows until `leaseUntil`, in the table's order, in one statement: each row is then due
 * again only when the lease runs out (or, with `lockedUntil`, claimed by no one else until then). The rows come
 * back with `due_at`, when they were due, in no particular order.
 */
export async function claimDue<Row>(run: RunSql, table: TaskTable, lease: Lease): Promise<Row[]> {
  const name = raw(table.table);
  const key = raw(table.key);
  const due = raw(table.due);
  const held = table.lockedUntil ? raw(table.lockedUntil) : undefined;
  const free = held ? sql`AND (${held} IS NULL OR ${held} <= ${lease.now})` : empty;
  // MATERIALIZED: the locking SELECT runs once; joined as a plain subquery, PostgreSQL may rescan it and so take
  // more rows than the limit.
  const rows = await run<Row>(sql`WITH claimed AS MATERIALIZED (
      SELECT ${key}, ${due} AS due_at FROM ${name}
      WHERE (${lease.where}) AND ${due} <= ${lease.now} ${free}
      ORDER BY ${raw(table.order ?? table.due)} LIMIT ${lease.limit} FOR UPDATE SKIP LOCKED)
    UPDATE ${name} AS task SET ${held ?? due} = ${lease.leaseUntil} FROM claimed
    WHERE task.${key} = claimed.${key}
    RETURNING ${lease.returning ?? sql`task.*`}, claimed.due_at`);
  taskMetrics.claimed.inc({ kind: table.kind }, rows.length);
  return rows;
}

export interface Lock {
  /** Which rows to lock, due ones included; the row is `task` (and only its rows are locked, not a subquery's). */
  where: Sql;
  limit: number;
  /** The columns returned; `task.${key}` when not given. */
  returning?: Sql;
}

/**
 * Locks up to `limit` rows for the caller's transaction, in the table's order: the work is done and committed in
 * that transaction (or, if its process dies, rolled back and found again by the next pass).
 */
export async function lockDue<Row>(tx: RunSql, table: TaskTable, lock: Lock): Promise<Row[]> {
  const rows = await tx<Row>(sql`SELECT ${lock.returning ?? sql`task.${raw(table.key)}`}
    FROM ${raw(table.table)} AS task WHERE ${lock.where}
    ORDER BY ${raw(table.order ?? table.due)} LIMIT ${lock.limit} FOR UPDATE OF task SKIP LOCKED`);
  taskMetrics.claimed.inc({ kind: table.kind }, rows.length);
  return rows;
}

/** The next attempt after a failure: when, and whether the policy's listed waits are spent. */
export interface NextAttempt {
  at: Date;
  delayMs: number;
  /** The listed waits are spent: retries go on at the repeated wait (worth an alert). */
  exhausted: boolean;
}

/** When a task is tried again after its `attempts`-th failed attempt (1, 2, ...) by `policy`; null when dead. */
export function nextAttempt(policy: RetryPolicy, attempts: number, now: Date): NextAttempt | null {
  const listed = policy.delaysMs[attempts - 1];
  const delayMs = listed ?? (policy.thenMs === "dead" ? undefined : policy.thenMs);
  if (delayMs === undefined) return null;
  return { at: new Date(now.getTime() + delayMs), delayMs, exhausted: listed === undefined };
}

/** Counts `tasks` attempts' outcome: `done`, `retried` (due again later) or `dead` (no more attempts). */
export const countOutcome = (kind: TaskKind, outcome: "done" | "retried" | "dead", tasks = 1) =>
  taskMetrics.outcomes.inc({ kind, outcome }, tasks);
