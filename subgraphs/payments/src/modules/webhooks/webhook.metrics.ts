import { metrics } from "@pos-cloud/common/metrics";
import { Counter, Histogram } from "prom-client";

/** The spec's webhook metrics; `api_key_id` is the client_id (the key's public name; its secrets are not labels). */
export const webhookMetrics = {
  /** Each attempt's outcome: `delivered`, `retried` (failed, tried again later) or `dead_lettered`. */
  deliveries: new Counter({
    name: "pgw_webhook_delivery_total",
    help: "Partner webhook attempts by API key and outcome (delivered, retried, dead_lettered).",
    labelNames: ["api_key_id", "status"] as const,
    registers: [metrics],
  }),
  latency: new Histogram({
    name: "pgw_webhook_delivery_latency_seconds",
    help: "Seconds one partner webhook attempt took, by API key.",
    labelNames: ["api_key_id"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics],
  }),
};
