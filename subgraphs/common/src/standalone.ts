import { ApolloServer } from "@apollo/server";
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
} from "@apollo/server/plugin/disabled";
import { startStandaloneServer } from "@apollo/server/standalone";
import { GraphQLError } from "graphql";
import { AppError } from "./errors";
import { formatError, type SubgraphHost } from "./subgraph";

/**
 * Serves one subgraph over HTTP for the cluster wiring. The caller is read from the hop's headers by the same
 * `contextFor` the in-process hop uses; a request without the internal credential is refused with 401.
 */
export async function serveSubgraph(host: SubgraphHost, listen: { port: number; host?: string }) {
  const server = new ApolloServer<object>({
    schema: host.schema,
    // The process owns its signals (a clean close in order); Apollo's own handler would stop it half-way.
    stopOnTerminationSignals: false,
    // Traces go to Apollo's hosted studio, which this platform does not use; no type or field carries a cache hint
    // (docs/decisions.md).
    plugins: [ApolloServerPluginInlineTraceDisabled(), ApolloServerPluginCacheControlDisabled()],
    formatError: (formatted, error) => (error instanceof GraphQLError ? formatError(error) : formatted),
  });
  const { url } = await startStandaloneServer(server, {
    listen,
    context: async ({ req }) => {
      try {
        return host.contextFor(req.headers) as object;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        throw new GraphQLError(error.message, {
          extensions: { code: error.code, details: error.details, http: { status: error.status } },
        });
      }
    },
  });
  return { url, close: () => server.stop() };
}
