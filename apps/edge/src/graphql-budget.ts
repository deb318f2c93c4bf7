import type { ApolloGateway, GraphQLDataSource } from "@apollo/gateway";
import type { ApolloServerOptionsWithGateway, BaseContext } from "@apollo/server";
import { AppError, asGraphQLError } from "@pos-cloud/common";

type Gateway = ApolloServerOptionsWithGateway<BaseContext>["gateway"];
type Executor = NonNullable<Awaited<ReturnType<Gateway["load"]>>["executor"]>;
type ExecutionResult = Awaited<ReturnType<Executor>>;

/**
 * The query planner's own limits, thrown as plain errors (a 500 otherwise). The document limits refuse such
 * operations first; this is the last line.
 */
const plannerRefusal = /non-local selections exceeds limit|maximum recursive selections/;

/**
 * A time budget per operation. The gateway plans and executes in its executor, so the budget wraps it and covers
 * both: past it, the client gets `gateway_timeout` (HTTP 504) at once, and the operation's remaining subgraph
 * fetches are not started (`guard` on each data source). Work already sent to a subgraph finishes there: a mutation
 * is never left half-written, and its idempotency key gives the client the outcome on retry.
 */
export function timeBudget(timeoutMs: number) {
  const deadlines = new WeakMap<object, AbortSignal>();
  const timeout = () =>
    asGraphQLError(
      new AppError("gateway_timeout", `the operation did not finish within ${timeoutMs} ms`, { limit_ms: timeoutMs }),
    );
  const plannerRefused = () =>
    asGraphQLError(
      new AppError("invalid_request", "the operation is too complex to plan; ask for fewer fields", {
        constraint: "query_plan",
      }),
    );

  const budgeted =
    (executor: Executor): Executor =>
    async (requestContext) => {
      const spent = new AbortController();
      deadlines.set(requestContext.context, spent.signal);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<ExecutionResult>((resolve) => {
        timer = setTimeout(() => {
          spent.abort();
          resolve({ errors: [timeout()] });
        }, timeoutMs);
      });
      try {
        return await Promise.race([executor(requestContext), timedOut]);
      } catch (error) {
        if (error instanceof Error && plannerRefusal.test(error.message)) return { errors: [plannerRefused()] };
        throw error;
      } finally {
        clearTimeout(timer);
      }
    };

  return {
    /** The gateway whose every operation runs within the budget. */
    wrap: (gateway: ApolloGateway): Gateway => ({
      async load(options) {
        const loaded = await gateway.load(options);
        return { ...loaded, executor: loaded.executor && budgeted(loaded.executor) };
      },
      onSchemaLoadOrUpdate: (callback) => gateway.onSchemaLoadOrUpdate(callback),
      stop: () => gateway.stop(),
    }),
    /** The data source, refusing to start a fetch for an operation that ran out of time. */
    guard: <Context extends object>(source: GraphQLDataSource<Context>): GraphQLDataSource<Context> => ({
      async process(options) {
        deadlines.get(options.context)?.throwIfAborted();
        return source.process(options);
      },
    }),
  };
}
