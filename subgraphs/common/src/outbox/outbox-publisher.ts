import type { Job } from "../jobs";
import { logger } from "../logger";
import type { BusEvent, MessageBus, Topic } from "../messaging";
import { countOutboxWith, outboxMetrics } from "../metrics";
import { countOutcome, nextAttempt, retryPolicies } from "../tasks";
import { currentTraceparent, inSpan, SpanKind, traceContextOf } from "../tracing";
import type { OutboxRepository, OutboxRow, PublishFailure } from "./outbox.repository";

export type OutboxPublisher = ReturnType<typeof outboxPublisher>;

const BATCH = 100;
export const POLL_INTERVAL_MS = 5000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Published rows are kept this long, then deleted by the daily cleanup. */
export const RETENTION_MS = 7 * DAY_MS;

/** An outbox row as the bus carries it. */
export const busEventOf = (row: OutboxRow): BusEvent => ({
  id: row.id,
  event_type: row.event_type,
  aggregate_type: row.aggregate_type,
  aggregate_id: row.aggregate_id,
  payload: row.payload,
  created_at: row.created_at.toISOString(),
  traceparent: row.traceparent ?? null,
});

/** Puts one row on its topics in a span of the trace that wrote it; the event carries that span's context on. */
const publishRow = (bus: MessageBus, topics: Topic[], row: OutboxRow) =>
  inSpan(
    `outbox publish ${row.event_type}`,
    {
      kind: SpanKind.PRODUCER,
      parent: traceContextOf(row.traceparent),
      attributes: { "messaging.message.id": row.id },
    },
    async () => {
      const event = { ...busEventOf(row), traceparent: currentTraceparent() ?? row.traceparent };
      await Promise.all(topics.map((topic) => bus.publish(topic, event)));
    },
  );

/** A failed publish, tried again by the `event_outbox` retry policy; `failed` once the policy gives up. */
function failureOf(row: OutboxRow, error: unknown, now: Date): PublishFailure {
  const next = nextAttempt(retryPolicies.event_outbox, row.retry_count + 1, now);
  return {
    id: row.id,
    error: error instanceof Error ? error.message : String(error),
    failed: next === null,
    next_attempt_at: next?.at ?? null,
  };
}

export interface OutboxPublisherDeps {
  outbox: OutboxRepository;
  bus: MessageBus;
  clock: () => Date;
  /** The topics an event goes to; the internal topic alone unless said otherwise. */
  topicsOf?: (event_type: string) => Topic[];
  /**
   * Whether this publisher feeds the gateway's outbox metrics (`pgw_outbox_*`, the spec's names): the payments
   * subgraph's does; another subgraph's events would be counted as the gateway's.
   */
  metrics?: boolean;
}

/**
 * Moves committed outbox rows onto the bus, at least once: a row is marked published in the transaction that claimed
 * it, after the bus took it, so a crash in between publishes it again and consumers deduplicate by its id.
 */
export function outboxPublisher(deps: OutboxPublisherDeps) {
  const { outbox, bus, clock, topicsOf = () => ["events.internal"], metrics = false } = deps;

  /** One claim of at most a batch: publishes each row, then records what happened; returns the rows published. */
  async function publishBatch() {
    const now = clock();
    const rowsById = new Map<string, OutboxRow>();
    const result = await outbox.claim(now, BATCH, async (rows) => {
      // Every message of the batch is sent before any acknowledgement is awaited, and a row is marked only once the
      // bus acknowledged all of its messages. The claim holds at most one row per aggregate and none whose earlier
      // row is not published, so a row that fails holds back its aggregate's later rows: events of one aggregate
      // leave in order however the rows of a batch fare (docs/decisions.md).
      const outcomes = await Promise.all(
        rows.map(async (row) => {
          rowsById.set(row.id, row);
          try {
            await publishRow(bus, topicsOf(row.event_type), row);
            return row.id;
          } catch (error) {
            logger.warn("publishing an outbox event failed", { id: row.id, event_type: row.event_type, error });
            return failureOf(row, error, now);
          }
        }),
      );
      return {
        published: outcomes.filter((outcome): outcome is string => typeof outcome === "string"),
        failures: outcomes.filter((outcome): outcome is PublishFailure => typeof outcome !== "string"),
      };
    });
    for (const id of metrics ? result.published : []) {
      const row = rowsById.get(id)!;
      outboxMetrics.published.inc({ event_type: row.event_type, status: "published" });
      outboxMetrics.latency.observe({ event_type: row.event_type }, (now.getTime() - row.created_at.getTime()) / 1000);
    }
    countOutcome("event_outbox", "done", result.published.length);
    for (const failure of result.failures) {
      countOutcome("event_outbox", failure.failed ? "dead" : "retried");
      const event_type = rowsById.get(failure.id)!.event_type;
      if (metrics) outboxMetrics.published.inc({ event_type, status: failure.failed ? "failed" : "retried" });
      if (failure.failed) logger.error("an outbox event failed for good", { id: failure.id, event_type });
    }
    return result;
  }

  /** Deletes published rows past the retention; failed rows are kept. */
  const cleanup = () => outbox.deletePublishedBefore(new Date(clock().getTime() - RETENTION_MS));

  return {
    publishBatch,
    cleanup,
    /**
     * The publisher's jobs (`<name>-outbox`, `<name>-outbox-cleanup`): batch after batch while there is more and the
     * bus is connected, at once when rows are committed (the database notifies), at the latest every
     * `pollIntervalMs`; the cleanup at start and daily.
     */
    jobs(options: { name: string; pollIntervalMs?: number }): Job[] {
      // While the bus is disconnected, rows are not claimed: a long outage must not spend their attempts and fail them.
      let busAway = false;
      const busConnected = () => {
        const connected = bus.connected();
        if (connected && busAway) logger.info("the message bus is back: publishing the outbox again");
        if (!connected && !busAway) logger.warn("the message bus is disconnected: outbox events wait");
        busAway = !connected;
        return connected;
      };
      return [
        {
          name: `${options.name}-outbox`,
          schedule: { everyMs: options.pollIntervalMs ?? POLL_INTERVAL_MS },
          runAtStart: true,
          async setUp(trigger) {
            const stopListening = await outbox.onAppended(trigger);
            const stopCounting = metrics ? countOutboxWith(outbox.counts) : () => {};
            return async () => {
              stopCounting();
              await stopListening();
            };
          },
          async run(signal) {
            while (!signal.aborted && busConnected() && (await publishBatch()).published.length > 0);
          },
        },
        {
          name: `${options.name}-outbox-cleanup`,
          schedule: { everyMs: DAY_MS },
          runAtStart: true,
          async run() {
            const deleted = await cleanup();
            if (deleted > 0) logger.info("published outbox events cleaned up", { deleted });
          },
        },
      ];
    },
  };
}
