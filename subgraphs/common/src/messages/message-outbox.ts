import { randomUUID } from "node:crypto";
import type { Job } from "../jobs";
import { logger } from "../logger";
import { messageMetrics } from "../metrics";
import type { SqlRunner } from "../storage";
import {
  claimDue,
  countOutcome,
  nextAttempt,
  onRunner,
  type RetryPolicy,
  raw,
  retryPolicies,
  sql,
  type TaskCensus,
  type TaskTable,
} from "../tasks";
import type { MessageTransport, OutgoingMessage } from "./transport";

/*
 * Messages to people (MFA codes, operators' alerts, customers' receipts) go through `outgoing_messages` of the
 * sending subgraph's database (portal, pos: the same shape): a row is written before the first attempt, so a crash
 * loses none; a failed attempt is tried again later with growing waits, and the last failure is an alert (a log
 * line, `pgw_message_delivery_total{status="failed"}` and the row, kept `failed` with its error).
 */

/** How long the process making an attempt holds its row from every other: longer than one attempt may take. */
const LEASE_MS = 60_000;
const BATCH = 20;

export interface MessageOptions {
  /** What the message is, for the log, the metric and operators (`mfa_code`, `card_exchange_failed`, `receipt`). */
  kind: string;
  /** After this the message is worth nothing (an MFA code's end): no attempt is made, and it ends `failed`. */
  expiresAt?: Date;
  /** A message with a key already queued is not queued again (a receipt per payment). */
  dedupeKey?: string;
}

interface MessageRow {
  id: string;
  kind: string;
  channel: "email" | "sms";
  recipient: string;
  subject: string;
  body: string;
  reply_to: string | null;
  attempts: number;
  expires_at: Date | null;
}

const COLUMNS = "id, kind, channel, recipient, subject, body, reply_to, attempts, expires_at";

const INSERT = `
  INSERT INTO outgoing_messages
    (id, kind, channel, recipient, subject, body, reply_to, dedupe_key, expires_at, next_attempt_at, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
  ON CONFLICT (dedupe_key) DO NOTHING
  RETURNING ${COLUMNS}`;

/** Pending rows are the `message` tasks, each taken by one process for the lease. */
const messageTasks: TaskTable = { kind: "message", table: "outgoing_messages", key: "id", due: "next_attempt_at" };
const pending = sql`status = 'pending'`;
/** For the task gauges: a message's last failure leaves it `failed`. */
export const messageCensus: TaskCensus = { table: messageTasks, pending, dead: sql`status = 'failed'` };
const returning = raw(COLUMNS.replace(/(\w+)/g, "task.$1"));

const MARK_SENT = `
  UPDATE outgoing_messages SET status = 'sent', attempts = attempts + 1, sent_at = $2, last_error = NULL WHERE id = $1`;

const MARK_FAILURE = `
  UPDATE outgoing_messages
  SET attempts = attempts + 1, last_error = $2, next_attempt_at = $3,
      status = CASE WHEN $4::boolean THEN 'failed' ELSE 'pending' END,
      given_up_at = CASE WHEN $4::boolean THEN $5::timestamptz END
  WHERE id = $1`;

export type MessageOutbox = ReturnType<typeof messageOutbox>;

/** Seals the bodies at rest (MFA codes) when given. */
export interface BodySeal {
  seal(text: string): string;
  open(sealed: string): string;
}

const after = (clock: () => Date, ms: number) => new Date(clock().getTime() + ms);

interface AttemptDeps {
  db: SqlRunner;
  transport: MessageTransport;
  clock: () => Date;
  policy: RetryPolicy;
  seal?: BodySeal;
}

/**
 * Attempts at rows this process holds, each outcome recorded on its row; the next retry of a failure seen here is
 * made here on time (`retryDue`), the periodic pass catches up the rest.
 */
function messageAttempts(deps: AttemptDeps, retryDue: () => void) {
  const { clock, policy } = deps;
  const wakeUps = new Set<NodeJS.Timeout>();
  let stopped = false;

  /** One attempt; never throws: a failure is the row's. */
  async function attempt(row: MessageRow): Promise<boolean> {
    const labels = { channel: row.channel, kind: row.kind };
    const attempts = row.attempts + 1;
    const expired = row.expires_at !== null && row.expires_at <= clock();
    let error = "it expired before it could be delivered";
    if (!expired) {
      try {
        await deps.transport({
          channel: row.channel,
          to: row.recipient,
          subject: row.subject,
          text: deps.seal ? deps.seal.open(row.body) : row.body,
          replyTo: row.reply_to ?? undefined,
        });
        await deps.db.query(MARK_SENT, [row.id, clock()]);
        messageMetrics.delivery.inc({ ...labels, status: "sent" });
        countOutcome("message", "done");
        return true;
      } catch (failure) {
        error = failure instanceof Error ? failure.message : String(failure);
      }
    }
    const next = expired ? null : nextAttempt(policy, attempts, clock());
    const last = next === null || (row.expires_at !== null && next.at >= row.expires_at);
    await deps.db.query(MARK_FAILURE, [row.id, error.slice(0, 1000), last ? null : next.at, last, clock()]);
    countOutcome("message", last ? "dead" : "retried");
    const about = { message_id: row.id, kind: row.kind, channel: row.channel, attempts, error };
    if (last) {
      messageMetrics.delivery.inc({ ...labels, status: "failed" });
      logger.error("a message could not be delivered; no more attempts", { alert: "message_undeliverable", ...about });
    } else {
      messageMetrics.delivery.inc({ ...labels, status: "retried" });
      logger.warn("a message could not be delivered; trying again later", { ...about, retry_in_ms: next.delayMs });
      wakeUpIn(next.delayMs);
    }
    return false;
  }

  function wakeUpIn(ms: number) {
    if (stopped) return;
    const timer = setTimeout(() => {
      wakeUps.delete(timer);
      retryDue();
    }, ms);
    timer.unref();
    wakeUps.add(timer);
  }

  return {
    attempt,
    /** Ends the wake-ups. */
    stop() {
      stopped = true;
      for (const timer of wakeUps) clearTimeout(timer);
      wakeUps.clear();
    },
  };
}

export function messageOutbox(deps: {
  db: SqlRunner;
  transport: MessageTransport;
  clock?: () => Date;
  retryDelaysMs?: number[];
  seal?: BodySeal;
}) {
  const clock = deps.clock ?? (() => new Date());
  const policy = deps.retryDelaysMs ? { delaysMs: deps.retryDelaysMs, thenMs: "dead" as const } : retryPolicies.message;
  /** The registry's trigger of the retry job, while it is set up in this process; else a wake-up runs the pass. */
  let runEarly: (() => void) | undefined;
  const retryDue = () => (runEarly ? runEarly() : void outbox.retryDueMessages());
  const attempts = messageAttempts({ ...deps, clock, policy }, retryDue);
  let stopped = false;
  let running: Promise<number> | undefined;

  const outbox = {
    /**
     * Queues a message and makes its first attempt now. Resolves once the row is written and the attempt recorded,
     * whatever its outcome (`delivered` says which); a failed one is tried again later.
     */
    async send(message: OutgoingMessage, options: MessageOptions): Promise<{ queued: boolean; delivered: boolean }> {
      const body = deps.seal ? deps.seal.seal(message.text) : message.text;
      const [row] = await deps.db.query<MessageRow>(INSERT, [
        randomUUID(),
        options.kind,
        message.channel,
        message.to,
        message.subject,
        body,
        message.replyTo ?? null,
        options.dedupeKey ?? null,
        options.expiresAt ?? null,
        after(clock, LEASE_MS),
        clock(),
      ]);
      if (!row) return { queued: false, delivered: false };
      return { queued: true, delivered: await attempts.attempt(row) };
    },

    /**
     * Attempts every message whose next attempt is due (and any a crashed process held past its lease); returns how
     * many were attempted. A pass never overlaps the one before in this process; several processes share the rows.
     */
    retryDueMessages(): Promise<number> {
      running ??= (async () => {
        let attempted = 0;
        for (;;) {
          const lease = { where: pending, now: clock(), leaseUntil: after(clock, LEASE_MS), limit: BATCH, returning };
          const rows = await claimDue<MessageRow>(onRunner(deps.db), messageTasks, lease);
          for (const row of rows) await attempts.attempt(row);
          attempted += rows.length;
          if (rows.length < BATCH || stopped) return attempted;
        }
      })().finally(() => {
        running = undefined;
      });
      return running;
    },

    /** Has a failure's wake-up run the registry's job (`trigger`) rather than a pass of its own, until the undo. */
    wakeJob(trigger: () => void) {
      runEarly = trigger;
      return () => {
        runEarly = undefined;
      };
    },

    /** Ends the wake-ups and waits for a pass under way. */
    async stop() {
      stopped = true;
      attempts.stop();
      await running;
    },
  };
  return outbox;
}

/** How often queued e-mail and SMS are looked at for a due retry (a failure seen in-process wakes it earlier). */
const MESSAGE_RETRY_INTERVAL_MS = 5000;

/**
 * The job that retries a message outbox's due e-mail and SMS, and messages a process that crashed mid-attempt held.
 * Rows are claimed, so any number of processes may run it.
 */
export const messageRetryJob = (name: string, outbox: Pick<MessageOutbox, "retryDueMessages" | "wakeJob">): Job => ({
  name,
  schedule: { everyMs: MESSAGE_RETRY_INTERVAL_MS },
  run: () => outbox.retryDueMessages(),
  setUp: (trigger) => outbox.wakeJob(trigger),
});
