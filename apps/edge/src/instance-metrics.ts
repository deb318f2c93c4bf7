import cluster, { type Worker } from "node:cluster";
import { metrics } from "@pos-cloud/common/metrics";
import { AggregatorRegistry } from "prom-client";

/** The message an instance sends its primary for the whole edge's metrics, and the primary's answer. */
const EDGE_METRICS = "pos-cloud:edge-metrics";

interface MetricsMessage {
  type: typeof EDGE_METRICS;
  id: number;
  text?: string;
  error?: string;
}

const isMetricsMessage = (message: unknown): message is MetricsMessage =>
  typeof message === "object" && message !== null && (message as { type?: unknown }).type === EDGE_METRICS;

if (cluster.isWorker) {
  // prom-client answers the primary's collection with this registry; constructing an aggregator adds the listener.
  AggregatorRegistry.setRegistries([metrics]);
  new AggregatorRegistry();
}

/**
 * In the primary of EDGE_INSTANCES processes: answers an instance that was scraped with every instance's series
 * summed (prom-client's cluster aggregation), so a scrape of the shared port sees the whole edge, not whichever
 * instance took the connection.
 */
export function aggregateInstanceMetrics() {
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker: Worker, message: unknown) => {
    if (!isMetricsMessage(message)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: EDGE_METRICS, id: message.id, text }),
      (error: Error) => worker.send({ type: EDGE_METRICS, id: message.id, error: error.message }),
    );
  });
}

let nextRequest = 0;

/** The edge's metrics in Prometheus text: the whole edge's from the primary in an instance, this process's otherwise. */
export function edgeMetrics(): Promise<string> {
  if (!cluster.isWorker) return metrics.metrics();
  const id = nextRequest++;
  return new Promise((resolve, reject) => {
    const answered = (message: unknown) => {
      if (!isMetricsMessage(message) || message.id !== id) return;
      process.off("message", answered);
      if (message.text === undefined) reject(new Error(`edge metrics unavailable: ${message.error}`));
      else resolve(message.text);
    };
    process.on("message", answered);
    process.send!({ type: EDGE_METRICS, id });
  });
}
