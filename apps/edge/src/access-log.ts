import type { IncomingMessage, ServerResponse } from "node:http";
import { type Caller, logger } from "@pos-cloud/common";
import { metrics } from "@pos-cloud/common/metrics";
import { Histogram } from "prom-client";

/** What the edge learnt of a request while serving it: who called, and which route pattern answered. */
export interface Seen {
  caller?: Caller;
  route?: string;
}

/** Labelled by route pattern, never by raw path: ids and tokens in paths would make a series per request. */
const requestDuration = new Histogram({
  name: "pgw_http_request_duration_seconds",
  help: "Seconds from an HTTP request's arrival to its response, by method, route pattern and status.",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metrics],
});

/**
 * One line per request once its response is sent (or its connection closed): the path without its query, which
 * may carry a payment token, and who called as far as the edge knew by then. Its duration goes to the request
 * histogram, under `unmatched` for a path no route has.
 */
export function logAccess(req: IncomingMessage, res: ServerResponse, requestId: string, seen: Seen) {
  const started = performance.now();
  res.once("close", () => {
    const { caller, route = "unmatched" } = seen;
    const seconds = (performance.now() - started) / 1000;
    requestDuration.observe({ method: req.method ?? "GET", route, status: String(res.statusCode) }, seconds);
    logger.info("request", {
      request_id: requestId,
      method: req.method,
      path: (req.url ?? "/").split("?")[0],
      status: res.statusCode,
      duration_ms: Math.round(seconds * 1000),
      caller_type: caller?.type,
      caller_id: caller?.id,
      completed: res.writableFinished,
    });
  });
}
