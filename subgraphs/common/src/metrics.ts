import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { logger } from "./logger";

/**
 * Every metric of the process, served by the edge at `GET /metrics` in Prometheus text format. Names are the spec's
 * with underscores for dots. A subpath of its own (`@pos-cloud/common/metrics`): loading it loads no storage.
 */
export const metrics = new Registry();
// The process's own health: event loop lag, heap, handles.
collectDefaultMetrics({ register: metrics });

export interface OutboxCounts {
  pending: number;
  failed: number;
}

/** Where the outbox gauges read their values at each scrape: the running publisher's database. */
let outboxCounts: (() => Promise<OutboxCounts>) | undefined;

/** Makes the outbox gauges read `source` until the returned function is called. */
export function countOutboxWith(source: () => Promise<OutboxCounts>): () => void {
  outboxCounts = source;
  return () => {
    if (outboxCounts === source) outboxCounts = undefined;
  };
}

async function readOutboxCount(gauge: Gauge, status: keyof OutboxCounts) {
  try {
    const counts = await outboxCounts?.();
    if (counts) gauge.set(counts[status]);
  } catch (error) {
    logger.warn("outbox counts unavailable; the gauge keeps its last value", { error });
  }
}

export const outboxMetrics = {
  /** Each publish attempt's outcome: `published`, `retried` (a failed attempt, tried again later) or `failed`. */
  published: new Counter({
    name: "pgw_outbox_events_published_total",
    help: "Outbox publish attempts by event type and outcome (published, retried, failed).",
    labelNames: ["event_type", "status"] as const,
    registers: [metrics],
  }),
  pending: new Gauge({
    name: "pgw_outbox_pending_count",
    help: "Outbox events waiting to be published.",
    registers: [metrics],
    collect() {
      return readOutboxCount(this, "pending");
    },
  }),
  failed: new Gauge({
    name: "pgw_outbox_failed_count",
    help: "Outbox events that failed permanently and wait for an operator's replay.",
    registers: [metrics],
    collect() {
      return readOutboxCount(this, "failed");
    },
  }),
  /** From the event's write to its publication. */
  latency: new Histogram({
    name: "pgw_outbox_publish_latency_seconds",
    help: "Seconds from an outbox event's write to its publication, by event type.",
    labelNames: ["event_type"] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [metrics],
  }),
};

/** The job registry's (jobs.ts): every run of every job by its outcome, and when each last succeeded. */
export const jobMetrics = {
  runs: new Counter({
    name: "pgw_job_runs_total",
    help: "Runs of periodic jobs by job and outcome (succeeded, failed).",
    labelNames: ["job", "outcome"] as const,
    registers: [metrics],
  }),
  lastSuccess: new Gauge({
    name: "pgw_job_last_success_timestamp_seconds",
    help: "When each periodic job last ended without an error (Unix seconds).",
    labelNames: ["job"] as const,
    registers: [metrics],
  }),
};

export const messageMetrics = {
  /** Each attempt at an e-mail or SMS: `sent`, `retried` (failed, tried again later) or `failed` (no more attempts). */
  delivery: new Counter({
    name: "pgw_message_delivery_total",
    help: "Attempts at delivering e-mail and SMS by channel, kind and outcome (sent, retried, failed).",
    labelNames: ["channel", "kind", "status"] as const,
    registers: [metrics],
  }),
};
