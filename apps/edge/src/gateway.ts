import { ApolloGateway, type GraphQLDataSource, RemoteGraphQLDataSource } from "@apollo/gateway";
import { ApolloServer } from "@apollo/server";
import { ApolloServerPluginCacheControlDisabled } from "@apollo/server/plugin/disabled";
import {
  anonymous,
  type Caller,
  callerHeaders,
  type SubgraphEndpoint,
  type SubgraphHost,
  traceHeaders,
  variableRefusals,
} from "@pos-cloud/common";
import type { GraphQLFormattedError, GraphQLSchema } from "graphql";
import { timeBudget } from "./graphql-budget";
import { clientErrorFormatter, storableLiterals, storableVariables, unexpectedErrorLog } from "./graphql-errors";
import { documentRules, type GraphQLLimits } from "./graphql-limits";
import { refusedRequestsPlugin } from "./refused-requests";
import { subscriptionsOverWebSocket } from "./subscriptions-over-http";
import { unauthenticatedPlugin } from "./unauthenticated";

export type GatewayContext = {
  caller: Caller;
};

/**
 * Where each subgraph runs: in this process (embedded wiring) or behind a URL (cluster wiring). This is the one
 * place that tells the two apart; both hops carry the caller and the internal credential as the same headers.
 */

class InProcessDataSource implements GraphQLDataSource<GatewayContext> {
  constructor(
    private readonly host: SubgraphHost,
    private readonly internalToken: string,
  ) {}

  async process({ request, context }: Parameters<GraphQLDataSource<GatewayContext>["process"]>[0]) {
    const caller = (context as Partial<GatewayContext>).caller ?? anonymous;
    const result = await this.host.execute(
      { query: request.query ?? "", variables: request.variables, operationName: request.operationName },
      callerHeaders(caller, this.internalToken),
    );
    return result as Awaited<ReturnType<GraphQLDataSource["process"]>>;
  }
}

class RemoteSubgraphDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  constructor(
    url: string,
    private readonly internalToken: string,
  ) {
    super({ url });
  }

  override willSendRequest({
    request,
    context,
  }: Parameters<RemoteGraphQLDataSource<GatewayContext>["willSendRequest"] & {}>[0]) {
    const caller = (context as Partial<GatewayContext>).caller ?? anonymous;
    for (const [name, value] of Object.entries({ ...callerHeaders(caller, this.internalToken), ...traceHeaders() })) {
      request.http?.headers.set(name, value);
    }
  }

  /**
   * A subgraph refuses a variable that its own scalar rejects (JSONObject) with HTTP 400 and GraphQL errors in the
   * body: they go on as the in-process hop passes them, so the client hears which field was wrong, not a 500.
   */
  override async process(options: Parameters<GraphQLDataSource<GatewayContext>["process"]>[0]) {
    try {
      return await super.process(options);
    } catch (error) {
      const response = (error as { extensions?: { response?: { status?: number; body?: unknown } } }).extensions
        ?.response;
      if (response?.status === 400 && hasErrors(response.body)) return response.body;
      throw error;
    }
  }
}

const hasErrors = (body: unknown): body is { errors: GraphQLFormattedError[] } =>
  typeof body === "object" && body !== null && Array.isArray((body as { errors?: unknown }).errors);

export async function startGraphQL(options: {
  supergraphSdl: string;
  subgraphs: Record<string, SubgraphEndpoint>;
  internalToken: string;
  limits: GraphQLLimits;
  /** Introspection and "Did you mean ..." suggestions: for development, off in production. */
  schemaDetails: boolean;
}): Promise<{ server: ApolloServer<GatewayContext>; apiSchema: () => GraphQLSchema }> {
  const budget = timeBudget(options.limits.timeoutMs);
  // @apollo/gateway reports usage to Apollo's servers, after probing the cloud metadata endpoints of AWS, GCP and
  // Azure, unless this is set: a payments platform sends nothing out that its operator did not ask for
  // (docs/decisions/edge.md, "No usage reports to Apollo"). An operator's own setting stands.
  process.env.APOLLO_TELEMETRY_DISABLED ??= "true";
  const gateway = new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    buildService: ({ name }) => {
      const endpoint = options.subgraphs[name];
      if (!endpoint) throw new Error(`no endpoint configured for subgraph ${name}`);
      return budget.guard(
        "host" in endpoint
          ? new InProcessDataSource(endpoint.host, options.internalToken)
          : new RemoteSubgraphDataSource(endpoint.url, options.internalToken),
      );
    },
    // The query plan names the subgraphs; it is never shown to clients (a header asks for it outside production).
    __exposeQueryPlanExperimental: false,
  });
  const server = new ApolloServer<GatewayContext>({
    gateway: budget.wrap(gateway),
    // The process owns its signals (a clean close in order); Apollo's own handler would stop it half-way.
    stopOnTerminationSignals: false,
    introspection: options.schemaDetails,
    includeStacktraceInErrorResponses: false,
    formatError: clientErrorFormatter({ schemaDetails: options.schemaDetails }),
    // Parsing stops at the token limit; the document limits run with the specified rules, before the gateway plans.
    parseOptions: { maxTokens: options.limits.maxTokens },
    validationRules: [...documentRules(options.limits), storableLiterals],
    // Apollo's defaults, stated because they are part of the API: a request without a JSON content type (or a
    // preflight header) is refused, as are batches; a GET may carry only a query.
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    // No type or field carries a cache hint, so the plugin would only cost memory (docs/decisions.md).
    plugins: [
      ApolloServerPluginCacheControlDisabled(),
      unauthenticatedPlugin(),
      refusedRequestsPlugin(),
      storableVariables,
      unexpectedErrorLog,
      variableRefusals,
      subscriptionsOverWebSocket,
    ],
  });
  let apiSchema: GraphQLSchema | undefined;
  gateway.onSchemaLoadOrUpdate((update) => {
    apiSchema = update.apiSchema;
  });
  await server.start();
  return {
    server,
    apiSchema: () => {
      if (!apiSchema) throw new Error("the gateway has not loaded its schema");
      return apiSchema;
    },
  };
}
