import { type Database, preparedSql } from "../storage";
import { lockDue, sql, type TaskCensus, type TaskTable } from "../tasks";

/*
 * The transactional outbox of a subgraph's database, in raw SQL (row locks Prisma does not take): each subgraph
 * that publishes events has an `outbox_events` table of the same shape (payments, pos), written in the transaction
 * of the change it records, and a publisher (`outboxPublisher`) that claims pending rows and puts them on the bus.
 */

/** The NOTIFY channel of the trigger on outbox_events (migration `outbox_notify`): rows were committed. */
const APPENDED_CHANNEL = "outbox_events";

/** An outbox row as the publisher claims it. */
export interface OutboxRow {
  id: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: Record<string, unknown>;
  retry_count: number;
  created_at: Date;
  /** The trace of the change that wrote it (claimed rows; null while tracing was off). */
  traceparent?: string | null;
}

/** A claimed row whose publish failed: `failed` when it was the last attempt, else tried again at `next_attempt_at`. */
export interface PublishFailure {
  id: string;
  error: string;
  failed: boolean;
  next_attempt_at: Date | null;
}

/** Which published events a partner reads (`partnerEvents`). */
export interface PartnerEventFilter {
  client_partner_id: number;
  types: string[];
  after_seq: bigint;
  created_after?: Date;
}

/** What one claim does with its rows before its transaction commits. */
export type ClaimedBatch = (rows: OutboxRow[]) => Promise<{ published: string[]; failures: PublishFailure[] }>;

/** Pending rows are the `event_outbox` tasks, taken in the order they were written. */
const outboxTasks: TaskTable = {
  kind: "event_outbox",
  table: "outbox_events",
  key: "id",
  due: "next_attempt_at",
  order: "seq",
};

/** For the task gauges: a row's last failed publish leaves it `failed` until an operator replays it. */
export const outboxCensus: TaskCensus = {
  table: outboxTasks,
  pending: sql`status = 'pending'`,
  dead: sql`status = 'failed'`,
};

/**
 * Pending rows that may go now. A row waits while an earlier row of its aggregate is not published (pending, held by
 * another publisher, waiting for its next attempt, or failed), so an aggregate's events leave in the order they were
 * written.
 */
const claimable = (
  now: Date,
) => sql`task.status = 'pending' AND (task.next_attempt_at IS NULL OR task.next_attempt_at <= ${now})
    AND NOT EXISTS (
      SELECT 1 FROM outbox_events earlier
      WHERE earlier.aggregate_type = task.aggregate_type AND earlier.aggregate_id = task.aggregate_id
        AND earlier.seq < task.seq AND earlier.status IN ('pending', 'failed'))`;
const claimed = sql`task.id, task.event_type, task.aggregate_type, task.aggregate_id, task.payload, task.retry_count,
  task.created_at, task.traceparent`;

/**
 * Also lets the claim's transaction commit without waiting for the disk: a mark lost in a database crash only makes
 * its rows pending again, and publishing them twice is what at-least-once allows (docs/decisions.md).
 */
const MARK_PUBLISHED = `
  WITH marked AS (UPDATE outbox_events SET status = 'published', published_at = $1 WHERE id = ANY($2::text[]))
  SELECT set_config('synchronous_commit', 'off', true)`;

const MARK_FAILURE = `
  UPDATE outbox_events
  SET retry_count = retry_count + 1, last_error = $2, next_attempt_at = $3,
      status = CASE WHEN $4::boolean THEN 'failed' ELSE 'pending' END
  WHERE id = $1`;

/** At most this many rows per cleanup statement, so one statement never holds a week of rows. */
const CLEANUP_CHUNK = 10_000;

export type OutboxRepository = ReturnType<typeof outboxRepository>;

/** The publisher's and the operators' access to outbox rows, in raw SQL (row locks Prisma does not take). */
export function outboxRepository(db: Database) {
  return {
    /**
     * Claims up to `limit` rows that may go now, oldest first, locked for a transaction (rows another publisher holds
     * are skipped: the task queue's `lockDue`), lets `work` publish them, and records the outcome in the same
     * transaction: if the process dies before the commit, the rows are pending again for the next claim.
     */
    claim: (now: Date, limit: number, work: ClaimedBatch) =>
      db.transaction(async (tx) => {
        const rows = await lockDue<OutboxRow>(preparedSql(tx), outboxTasks, {
          where: claimable(now),
          limit,
          returning: claimed,
        });
        if (rows.length === 0) return { claimed: 0, published: [] as string[], failures: [] as PublishFailure[] };
        const outcome = await work(rows);
        if (outcome.published.length > 0) await tx.prepared(MARK_PUBLISHED, [now, outcome.published]);
        for (const failure of outcome.failures) {
          await tx.prepared(MARK_FAILURE, [failure.id, failure.error, failure.next_attempt_at, failure.failed]);
        }
        return { claimed: rows.length, ...outcome };
      }),

    counts: async () => {
      const [row] = await db.query<{ pending: string; failed: string }>(
        `SELECT (SELECT count(*) FROM outbox_events WHERE status = 'pending') AS pending,
                (SELECT count(*) FROM outbox_events WHERE status = 'failed') AS failed`,
      );
      return { pending: Number(row?.pending ?? 0), failed: Number(row?.failed ?? 0) };
    },

    /** Deletes published rows older than `before`; failed rows stay until an operator replays them. */
    async deletePublishedBefore(before: Date): Promise<number> {
      let deleted = 0;
      for (;;) {
        const rows = await db.query<{ id: string }>(
          `DELETE FROM outbox_events WHERE id IN (
             SELECT id FROM outbox_events WHERE status = 'published' AND published_at < $1 LIMIT $2)
           RETURNING id`,
          [before, CLEANUP_CHUNK],
        );
        deleted += rows.length;
        if (rows.length < CLEANUP_CHUNK) return deleted;
      }
    },

    failed: (limit: number) =>
      db.query<OutboxRow & { last_error: string | null }>(
        `SELECT id, event_type, aggregate_type, aggregate_id, payload, retry_count, last_error, created_at
         FROM outbox_events WHERE status = 'failed' ORDER BY seq LIMIT $1`,
        [limit],
      ),

    /** One aggregate's rows still kept (published rows go after 7 days), in the order they were written. */
    ofAggregate: (aggregate_type: string, aggregate_id: string) =>
      db.query<OutboxRow & { status: string; published_at: Date | null }>(
        `SELECT id, event_type, aggregate_type, aggregate_id, payload, retry_count, status, created_at, published_at
         FROM outbox_events WHERE aggregate_type = $1 AND aggregate_id = $2 ORDER BY seq`,
        [aggregate_type, aggregate_id],
      ),

    /**
     * Published events of the given types whose metadata names the partner, in the order they were written, after
     * `after_seq`: `limit` of them, each with its `seq` (the cursor to go on from), and how many match without the
     * cursor.
     */
    async partnerEvents(filter: PartnerEventFilter, limit: number) {
      const where = `status = 'published' AND event_type = ANY($1::text[])
        AND payload->'metadata'->>'client_partner_id' = $2 AND ($3::timestamptz IS NULL OR created_at > $3)`;
      const params = [filter.types, String(filter.client_partner_id), filter.created_after ?? null];
      const [rows, [count]] = await Promise.all([
        db.query<OutboxRow & { seq: string | number | bigint }>(
          `SELECT id, seq, event_type, aggregate_type, aggregate_id, payload, retry_count, created_at
           FROM outbox_events WHERE ${where} AND seq > $4::bigint ORDER BY seq LIMIT $5`,
          [...params, String(filter.after_seq), limit],
        ),
        db.query<{ total: string | number }>(`SELECT count(*) AS total FROM outbox_events WHERE ${where}`, params),
      ]);
      return { rows: rows.map((row) => ({ ...row, seq: BigInt(row.seq) })), total: Number(count?.total ?? 0) };
    },

    /**
     * Failed rows (one, or all when `id` is null) back to pending with their attempts reset, and the publishers
     * woken for them; their ids.
     */
    async replay(id: string | null) {
      const rows = await db.query<{ id: string }>(
        `UPDATE outbox_events SET status = 'pending', retry_count = 0, next_attempt_at = NULL
         WHERE status = 'failed' AND ($1::text IS NULL OR id = $1) RETURNING id`,
        [id],
      );
      if (rows.length > 0) await db.query("SELECT pg_notify($1, '')", [APPENDED_CHANNEL]);
      return rows.map((row) => row.id);
    },

    /** Calls `onAppended` after each commit that appended rows, until the returned stop. */
    onAppended: (onAppended: () => void) => db.listen(APPENDED_CHANNEL, onAppended),
  };
}
