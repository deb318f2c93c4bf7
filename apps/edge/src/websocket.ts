import type { Server } from "node:http";
import type { ApolloServer } from "@apollo/server";
import { AppError, asGraphQLError } from "@pos-cloud/common";
import type { MessageBus } from "@pos-cloud/common/messaging";
import { type ExecuteOperation, MAX_BODY_BYTES, type RateLimiter } from "@pos-cloud/rest-compat";
import {
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  OperationTypeNode,
  print,
  specifiedRules,
  type ValidationRule,
} from "graphql";
import type { SubscribePayload } from "graphql-ws";
import { type Extra, useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import { takeApiLimit } from "./api-limit";
import type { Authenticator } from "./authenticate";
import type { GatewayContext } from "./gateway";
import { clientErrorFormatter, clientErrors, logUnexpectedError, storableLiterals } from "./graphql-errors";
import { documentRules, type GraphQLLimits, limitedDocument } from "./graphql-limits";
import type { CallSubgraph } from "./subgraph-client";
import { createSubscriptions, type ReadByToken, type RunQuery, type Subscriptions } from "./subscriptions";
import { idleSockets } from "./websocket-idle";
import { type ConnectionSessions, connectionSessions, UNAUTHORIZED_CLOSE } from "./websocket-sessions";

/** Close code for a connection whose operations went over the caller's API limit (HTTP's 429). */
const RATE_LIMITED_CLOSE = 4429;

export interface WebSocketOptions {
  /** Every operation counts against its caller's API limit (per user and per IP), as an HTTP request does. */
  limiter: RateLimiter;
  /** The same document limits as over HTTP, applied before graphql-ws would parse and validate on its own. */
  limits: GraphQLLimits;
  /** Subscriptions hear of changes on its internal topic, so any edge instance serves any terminal. */
  bus: MessageBus;
  /** The edge's own look-ups (which store an intent is in). */
  callSubgraph: CallSubgraph;
  /** The payments subgraph itself: a payment token's reads (`paymentIntentByToken`, outside the public graph). */
  payments: ExecuteOperation;
  clock?: () => Date;
}

const tooManyRequests = () =>
  asGraphQLError(new AppError("rate_limit_exceeded", "too many requests; the connection is closed, retry later"));

const internalError = () => asGraphQLError(new AppError("internal_error", "internal error"));

const paymentTokenOnly = () =>
  asGraphQLError(new AppError("forbidden", "a payment token may only subscribe to paymentIntentUpdated of its intent"));

/** A query run through the gateway exactly as over HTTP (validation, plugins, time budget). */
const gatewayRun =
  (graphql: ApolloServer<GatewayContext>): RunQuery =>
  async (document, variables, operationName, caller) => {
    const response = await graphql.executeOperation(
      { query: print(document), variables, operationName },
      { contextValue: { caller } },
    );
    return response.body.kind === "single" ? response.body.singleResult : { errors: [] };
  };

/** A payment token's read on the payments subgraph, its errors formatted for the client. */
const paymentsRead =
  (payments: ExecuteOperation, format: ReturnType<typeof clientErrorFormatter>): ReadByToken =>
  async (document, variables, caller) => {
    const result = await payments(print(document), variables ?? {}, caller);
    return { ...result, ...(result.errors ? { errors: clientErrors(format, result.errors, caller.requestId) } : {}) };
  };

interface OperationDeps {
  sessions: ConnectionSessions;
  subscriptions: Subscriptions;
  limiter: RateLimiter;
  limits: GraphQLLimits;
  apiSchema: () => GraphQLSchema;
  /** The rules Apollo Server validates an HTTP operation with: graphql-ws is handed a document it does not validate. */
  rules: ValidationRule[];
}

async function admit({ sessions, limiter }: OperationDeps, extra: Extra): Promise<GraphQLError[] | undefined> {
  if (sessions.expired(extra)) {
    return [
      new GraphQLError("the bearer token has expired or was revoked; reconnect with a new one", {
        extensions: { code: "unauthorized" },
      }),
    ];
  }
  // Operations already queued on a connection closed for its rate are not counted again.
  if (extra.socket.readyState !== extra.socket.OPEN) return [tooManyRequests()];
  if ((await takeApiLimit(limiter, sessions.callerOf(extra))).exceeded) {
    extra.socket.close(RATE_LIMITED_CLOSE, "Too many requests");
    return [tooManyRequests()];
  }
  return undefined;
}

/** The execution of one graphql-ws operation, or the errors that refuse it. */
async function operation(
  deps: OperationDeps,
  extra: Extra,
  id: string,
  payload: SubscribePayload,
): Promise<ExecutionArgs | readonly GraphQLError[]> {
  const { sessions, subscriptions } = deps;
  const refused = await admit(deps, extra);
  if (refused) return refused;
  const schema = deps.apiSchema();
  const checked = limitedDocument(schema, payload.query, deps.limits, deps.rules);
  if ("errors" in checked) return checked.errors;
  const args = {
    schema,
    document: checked.document,
    operationName: payload.operationName,
    variableValues: payload.variables,
  };
  if (getOperationAST(args.document, args.operationName)?.operation !== OperationTypeNode.SUBSCRIPTION) {
    return sessions.paymentTokenOf(extra) ? [paymentTokenOnly()] : args;
  }
  const slots = sessions.slotsOf(extra)!;
  const full = slots.take(id);
  if (full) return [full];
  let opened: Awaited<ReturnType<typeof subscriptions.open>> | undefined;
  try {
    opened = await subscriptions.open({
      schema,
      document: args.document,
      operationName: args.operationName ?? undefined,
      variables: args.variableValues ?? undefined,
      caller: sessions.callerOf(extra),
      paymentToken: sessions.paymentTokenOf(extra),
      stillValid: () => !sessions.expired(extra),
      closeExpired: () => extra.socket.close(UNAUTHORIZED_CLOSE, "Token expired"),
    });
  } finally {
    if (!opened || "errors" in opened) slots.release(id);
  }
  if ("errors" in opened) return opened.errors;
  // The root value of a subscription is its stream of messages, which `subscribe` hands to graphql-ws.
  return { ...args, rootValue: opened.updates };
}

/**
 * graphql-ws on `/graphql` of the same port. The connection authenticates once (`connectionParams.authorization`,
 * `Authorization` or a web view's `payment_token`, else the upgrade request's header); operations after its token expired are refused, so a
 * client reconnects with a fresh token. Each operation is counted against the caller's API limit (over it, the
 * connection is closed with 4429), parsed and checked against the document limits, then run through the gateway
 * exactly as over HTTP (the same validation, plugins and time budget). A subscription is checked the same way, then
 * each of its messages is such a run (`./subscriptions`).
 */
export async function attachWebSocket(
  httpServer: Server,
  graphql: ApolloServer<GatewayContext>,
  apiSchema: () => GraphQLSchema,
  authenticator: Authenticator,
  { limiter, limits, bus, callSubgraph, payments, clock = () => new Date() }: WebSocketOptions,
) {
  const run = gatewayRun(graphql);
  const format = clientErrorFormatter({ schemaDetails: false });
  const readByToken = paymentsRead(payments, format);
  const subscriptions = await createSubscriptions({ bus, run, callSubgraph, readByToken });
  // A message is at most what an HTTP body may be (ws accepts 100 MiB by default).
  const wss = new WebSocketServer({ server: httpServer, path: "/graphql", maxPayload: MAX_BODY_BYTES });
  const sessions = connectionSessions(authenticator, limits, clock);
  const rules = [...specifiedRules, ...documentRules(limits), storableLiterals];
  const operations: OperationDeps = { sessions, subscriptions, limiter, limits, apiSchema, rules };
  const { callerOf } = sessions;
  const idle = idleSockets(limits.idleConnectionMs);
  wss.on("connection", (socket) => idle.opened(socket));

  const cleanup = useServer<Record<string, unknown>, GatewayContext>(
    {
      // A socket that never initialises is closed (4408) by graphql-ws: it holds a connection slot meanwhile.
      connectionInitWaitTimeout: limits.connectionInitTimeoutMs,
      onConnect: (ctx) => sessions.connect(ctx.extra, ctx.connectionParams),
      onSubscribe: async (ctx, id, payload) => {
        idle.started(ctx.extra.socket, id);
        let refused = true;
        try {
          const result = await operation(operations, ctx.extra, id, payload);
          refused = Array.isArray(result);
          return result;
        } catch (error) {
          // graphql-ws would close the socket (4500) with the error's message, and log it without the request.
          logUnexpectedError(callerOf(ctx.extra).requestId, error);
          return [internalError()];
        } finally {
          // graphql-ws calls onComplete only for an operation that ran.
          if (refused) idle.ended(ctx.extra.socket, id);
        }
      },
      // Refusals and a subscription's failure: what no Apollo Server formatted is formatted (and logged) here.
      onError: (ctx, _id, _payload, errors) => clientErrors(format, errors, callerOf(ctx.extra).requestId),
      // Every subscription that was opened ends here: completed by either side, or its socket closed.
      onComplete: (ctx, id) => {
        sessions.slotsOf(ctx.extra)?.release(id);
        idle.ended(ctx.extra.socket, id);
      },
      context: (ctx) => ({ caller: callerOf(ctx.extra) }),
      // Results come formatted by Apollo Server (plain error objects): sent as they are, where graphql-ws would call
      // each error's toJSON and close the connection (4500) on the first error.
      onNext: (_ctx, _id, _payload, _args, result) => result as FormattedExecutionResult,
      execute: async (args) =>
        (await run(
          args.document,
          args.variableValues as Record<string, unknown> | undefined,
          args.operationName ?? undefined,
          (args.contextValue as GatewayContext).caller,
        )) as ExecutionResult,
      subscribe: (args) => args.rootValue as AsyncGenerator<ExecutionResult>,
    },
    wss,
  );
  return {
    close: async () => {
      await cleanup.dispose();
      await subscriptions.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
