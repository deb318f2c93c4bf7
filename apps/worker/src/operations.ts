import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { httpServerOptions, logger, type ReadinessChecks, sendReadiness } from "@pos-cloud/common";
import type { JobState } from "@pos-cloud/common/jobs";
import { metrics } from "@pos-cloud/common/metrics";

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(body));
}

/**
 * The worker's own small port, for operators only: `GET /health` (live), `GET /ready` (its databases and NATS, and
 * its jobs) and
 * `GET /metrics` (Prometheus: the outbox publisher's and the webhook dispatcher's series, which only workers make in
 * cluster mode). No token, like the edge's: keep the port on an internal network.
 */
export async function serveOperations(
  listen: { port: number; host: string },
  readiness: ReadinessChecks,
  jobs: () => JobState[],
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
      metrics.metrics().then(
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
