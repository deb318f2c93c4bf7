import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { httpServerOptions } from "./http-timeouts";
import type { JobState } from "./jobs";
import { logger } from "./logger";
import { type ReadinessChecks, sendReadiness } from "./readiness";

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(body));
}

/** A process's Prometheus text and its media type (prom-client's registry, or the edge's instances summed). */
export interface MetricsSource {
  text: () => Promise<string>;
  contentType: string;
}

/**
 * The operator's port of a process (the edge's `ADMIN_PORT`, a worker's `METRICS_PORT`): `GET /health` (live),
 * `GET /ready` (its dependencies, and its jobs when it runs any) and `GET /metrics` (Prometheus). No token: what
 * they show (descriptor counts, traffic by route, job schedules) is for the operator only, so the port is bound to
 * loopback unless the operator binds it to an internal network; it is never the public port.
 */
export async function serveOperatorPort(
  listen: { port: number; host: string },
  readiness: ReadinessChecks,
  metrics: MetricsSource,
  jobs?: () => JobState[],
) {
  const server = createServer(httpServerOptions(), (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET") {
      sendJson(res, 405, { code: "method_not_allowed", message: "only GET is served here", details: {} });
      return;
    }
    if (path === "/health") return sendJson(res, 200, { status: "ok" });
    if (path === "/ready") return void sendReadiness(res, readiness, jobs);
    if (path === "/metrics") {
      metrics.text().then(
        (body) => {
          res.writeHead(200, { "content-type": metrics.contentType });
          res.end(body);
        },
        (error: unknown) => {
          logger.error("metrics could not be collected", { error });
          sendJson(res, 500, { code: "internal_error", message: "metrics could not be collected", details: {} });
        },
      );
      return;
    }
    sendJson(res, 404, { code: "not_found", message: `no route for GET ${path}`, details: {} });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, resolve);
  });
  // After listening, an error (a failed accept when descriptors run out) is logged, never thrown at the process.
  server.on("error", (error) => logger.error("the operator port could not accept a connection", { error }));
  const { port } = server.address() as AddressInfo;
  const shown = ["0.0.0.0", "::"].includes(listen.host) ? "127.0.0.1" : listen.host;
  return {
    url: `http://${shown}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
