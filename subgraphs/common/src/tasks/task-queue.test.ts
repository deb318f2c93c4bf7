import { randomUUID } from "node:crypto";
import { postgresUrl } from "@pos-cloud/test-support/environment";
import { sqltag as sql } from "@prisma/client/runtime/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../storage";
import { doubling, evenly, retryPolicies } from "./task-policies";
import {
  claimDue,
  lockDue,
  nextAttempt,
  onRunner,
  type TaskTable,
  taskGauge,
  taskMetrics,
  watchTasks,
} from "./task-queue";

const name = `task_queue_test_${randomUUID().replaceAll("-", "")}`;
let db: Database;
const table = (extra: Partial<TaskTable> = {}): TaskTable => ({
  kind: "message",
  table: name,
  key: "id",
  due: "next_attempt_at",
  ...extra,
});
const at = (ms: number) => new Date(Date.UTC(2026, 10, 28) + ms);

beforeAll(async () => {
  db = await openDatabase({ url: postgresUrl("pos") });
  await db.exec(`CREATE TABLE ${name} (id text PRIMARY KEY, status text NOT NULL,
    next_attempt_at timestamptz NOT NULL, locked_until timestamptz)`);
  for (const [id, status, due] of [
    ["a", "pending", 0],
    ["b", "pending", 1000],
    ["c", "failed", 0],
    ["d", "pending", 5000],
  ] as const)
    await db.query(`INSERT INTO ${name} VALUES ($1, $2, $3)`, [id, status, at(due)]);
});
afterAll(async () => {
  await db.exec(`DROP TABLE ${name}`);
  await db.close();
});

const claimedCount = async () => (await taskMetrics.claimed.get()).values.find((v) => v.labels.kind === "message");

describe("the task queue", () => {
  it("claims due rows of the kind oldest first, each until its lease, and not again meanwhile", async () => {
    const before = (await claimedCount())?.value ?? 0;
    const lease = { where: sql`status = 'pending'`, now: at(2000), leaseUntil: at(60_000), limit: 1 };
    const first = await claimDue<{ id: string; due_at: Date }>(onRunner(db), table(), lease);
    expect(first.map((row) => [row.id, row.due_at.getTime()])).toEqual([["a", at(0).getTime()]]);
    const rest = await claimDue<{ id: string }>(onRunner(db), table(), { ...lease, limit: 10 });
    expect(rest.map((row) => row.id)).toEqual(["b"]);
    expect(await claimDue(onRunner(db), table(), { ...lease, now: at(59_999), limit: 10 })).toEqual([
      expect.objectContaining({ id: "d" }),
    ]);
    expect(((await claimedCount())?.value ?? 0) - before).toBe(3);
    const [a] = await db.query<{ next_attempt_at: Date }>(`SELECT next_attempt_at FROM ${name} WHERE id = 'a'`);
    expect(a?.next_attempt_at.getTime()).toBe(at(60_000).getTime());
  });

  it("holds a claim in its own column when the table has one, leaving the due time as it was", async () => {
    await db.query(`UPDATE ${name} SET next_attempt_at = $1, locked_until = NULL WHERE id = 'a'`, [at(0)]);
    const lease = { where: sql`id = 'a'`, now: at(1000), leaseUntil: at(2000), limit: 5 };
    const locked = table({ lockedUntil: "locked_until" });
    expect(await claimDue(onRunner(db), locked, lease)).toHaveLength(1);
    expect(await claimDue(onRunner(db), locked, { ...lease, now: at(1999) })).toHaveLength(0);
    expect(await claimDue(onRunner(db), locked, { ...lease, now: at(2000), leaseUntil: at(3000) })).toHaveLength(1);
  });

  it("passes over rows another transaction has locked", async () => {
    const where = sql`task.status = 'failed'`;
    await db.transaction(async (tx) => {
      expect(await lockDue(onRunner(tx), table(), { where, limit: 5 })).toEqual([{ id: "c" }]);
      if (db.kind === "postgres") {
        const other = await openDatabase({ url: postgresUrl("pos") });
        try {
          expect(await lockDue(onRunner(other), table(), { where, limit: 5 })).toEqual([]);
        } finally {
          await other.close();
        }
      }
    });
  });
});

describe("the task gauges", () => {
  it("count a watched kind's due, running (leased) and dead rows at each scrape, until it is no longer watched", async () => {
    for (const [id, status, due, lockedUntil] of [
      ["g1", "pending", 0, null],
      ["g2", "pending", 0, at(10_000)],
      ["g3", "pending", 50_000, null],
      ["g4", "failed", 0, null],
    ] as const)
      await db.query(`INSERT INTO ${name} VALUES ($1, $2, $3, $4)`, [id, status, at(due), lockedUntil]);
    const ours = sql`id LIKE 'g%'`;
    const census = {
      table: table({ kind: "gateway_sync", lockedUntil: "locked_until" }),
      pending: sql`status = 'pending' AND ${ours}`,
      dead: sql`status = 'failed' AND ${ours}`,
    };
    const counted = async () =>
      Object.fromEntries(
        (await taskGauge.get()).values
          .filter((value) => value.labels.kind === "gateway_sync")
          .map((value) => [value.labels.state, value.value]),
      );
    const unwatch = watchTasks(onRunner(db), [census], () => at(1000));
    expect(await counted()).toEqual({ due: 1, running: 1, dead: 1 });
    await db.query(`UPDATE ${name} SET locked_until = NULL WHERE id = 'g2'`);
    expect(await counted()).toEqual({ due: 2, running: 0, dead: 1 });
    unwatch();
    expect(await counted()).toEqual({});
  });
});

describe("retry policies", () => {
  it("waits as listed, then is dead or repeats its last wait", () => {
    const now = at(0);
    expect(nextAttempt(retryPolicies.message, 1, now)).toEqual({
      at: at(10_000),
      delayMs: 10_000,
      exhausted: false,
    });
    expect(nextAttempt(retryPolicies.message, 5, now)?.delayMs).toBe(7_200_000);
    expect(nextAttempt(retryPolicies.message, 6, now)).toBeNull();
    const poll = doubling(1000, 5000);
    expect([1, 2, 3, 4, 9].map((n) => nextAttempt(poll, n, now)?.delayMs)).toEqual([1000, 2000, 4000, 5000, 5000]);
    expect(nextAttempt(poll, 4, now)?.exhausted).toBe(true);
    expect(evenly(3, 100)).toEqual({ delaysMs: [100, 100], thenMs: "dead" });
    expect([1, 2, 3, 4, 5].map((n) => nextAttempt(retryPolicies.event_outbox, n, now)?.delayMs)).toEqual([
      5000,
      10_000,
      20_000,
      40_000,
      undefined,
    ]);
    expect([1, 2, 3].map((n) => nextAttempt(retryPolicies.webhook_delivery, n, now)?.delayMs)).toEqual([
      5000,
      20_000,
      undefined,
    ]);
    expect([1, 2, 3, 4].map((n) => nextAttempt(retryPolicies.card_exchange, n, now)?.delayMs)).toEqual([
      60_000,
      300_000,
      900_000,
      undefined,
    ]);
  });
});
