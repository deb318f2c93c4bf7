import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ApolloServer } from "@apollo/server";
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
} from "@apollo/server/plugin/disabled";
import { GraphQLError } from "graphql";
import { AppError, asGraphQLError } from "./errors";
import { serveHttpGraphQL } from "./http-graphql";
import { httpServerOptions } from "./http-timeouts";
import { logger, REQUEST_ID_HEADER, requestIdOf } from "./logger";
import { type ReadinessChecks, sendReadiness } from "./readiness";
import { formatError, logHiddenError, type SubgraphHost } from "./subgraph";
import { inSpan, SpanKind, traceContextOf } from "./tracing";
import { variableRefusals } from "./variables";

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

/** Apollo Server of one subgraph; each error it hides from the caller is logged with the edge's request id. */
function subgraphApollo(host: SubgraphHost) {
  return new ApolloServer<object>({
    schema: host.schema,
    // The process owns its signals (a clean close in order); Apollo's own handler would stop it half-way.
    stopOnTerminationSignals: false,
    // Traces go to Apollo's hosted studio, which this platform does not use; no type or field carries a cache hint
    // (docs/decisions.md).
    plugins: [
      ApolloServerPluginInlineTraceDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      variableRefusals,
      {
        async requestDidStart({ request }) {
          const requestId = request.http?.headers.get(REQUEST_ID_HEADER);
          return {
            async didEncounterErrors({ errors }) {
              for (const error of errors) logHiddenError(error, requestId);
            },
          };
        },
      },
    ],
    formatError: (formatted, error) => (error instanceof GraphQLError ? formatError(error) : formatted),
  });
}

async function contextFor(host: SubgraphHost, req: IncomingMessage) {
  try {
    return host.contextFor(req.headers) as object;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw asGraphQLError(error);
  }
}

/**
 * Serves one subgraph over HTTP for the cluster wiring: `/health`, `/ready` (its `readiness` checks) and GraphQL on
 * every other path. The caller is read from the hop's headers by the same `contextFor` the in-process hop uses; a
 * request without the internal credential is refused with 401. The access line and the errors of a request carry
 * the edge's request id.
 */
export async function serveSubgraph(
  host: SubgraphHost,
  listen: { port: number; host?: string },
  readiness: ReadinessChecks = {},
) {
  const server = subgraphApollo(host);
  await server.start();

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/health" && req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "ok" }));
      return;
    }
    if (path === "/ready" && req.method === "GET") return sendReadiness(res, readiness);
    const body = req.method === "POST" ? await readJson(req) : undefined;
    return serveHttpGraphQL(server, req, res, body, () => contextFor(host, req));
  }

  const http = createServer(httpServerOptions(), (req, res) => {
    const started = performance.now();
    const requestId = requestIdOf(req.headers[REQUEST_ID_HEADER]);
    res.once("close", () =>
      logger.info("subgraph request", {
        request_id: requestId,
        method: req.method,
        path: (req.url ?? "/").split("?")[0],
        status: res.statusCode,
        duration_ms: Math.round(performance.now() - started),
      }),
    );
    const hop = { kind: SpanKind.SERVER, parent: traceContextOf(req.headers) };
    inSpan(`subgraph ${host.name}`, hop, () => handle(req, res)).catch((error) => {
      logger.error("subgraph request failed", { request_id: requestId, error });
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ errors: [{ message: "bad request", extensions: { code: "invalid_request" } }] }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(listen.port, listen.host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  const url = `http://${listen.host && !["0.0.0.0", "::"].includes(listen.host) ? listen.host : "localhost"}:${port}/`;
  return {
    url,
    async close() {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeIdleConnections();
      });
      await server.stop();
    },
  };
}
