import type { IncomingMessage, Server } from "node:http";
import type { ApolloServer } from "@apollo/server";
import { AppError, anonymous, asGraphQLError, type Caller, REQUEST_ID_HEADER, requestIdOf } from "@pos-cloud/common";
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
} from "graphql";
import type { SubscribePayload } from "graphql-ws";
import { useServer } from "graphql-ws/use/ws";
import { type WebSocket, WebSocketServer } from "ws";
import { takeApiLimit } from "./api-limit";
import type { Authenticated, Authenticator } from "./authenticate";
import type { GatewayContext } from "./gateway";
import { clientErrorFormatter, clientErrors, logUnexpectedError, storableLiterals } from "./graphql-errors";
import { documentRules, type GraphQLLimits, limitedDocument } from "./graphql-limits";
import type { CallSubgraph } from "./subgraph-client";
import { type ConnectionSlots, subscriptionSlots } from "./subscription-slots";
import { createSubscriptions, type ReadByToken, type RunQuery } from "./subscriptions";

/** Close code for a connection whose token was refused (graphql-ws reserves 4400-4499 for such reasons). */
const UNAUTHORIZED_CLOSE = 4401;
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

/** A web view may name its payment token as such (`payment_token`), as the REST endpoints take it. */
const authorizationOf = (params: Record<string, unknown> | undefined, header: string | undefined) => {
  const value = params?.authorization ?? params?.Authorization ?? params?.payment_token ?? header;
  if (typeof value !== "string" || value === "") return undefined;
  // A bare token in the connection params is taken as a bearer token.
  return /^\S+$/.test(value) ? `Bearer ${value}` : value;
};

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
  const run: RunQuery = async (document, variables, operationName, caller) => {
    const response = await graphql.executeOperation(
      { query: print(document), variables, operationName },
      { contextValue: { caller } },
    );
    return response.body.kind === "single" ? response.body.singleResult : { errors: [] };
  };
  const format = clientErrorFormatter({ schemaDetails: false });
  const readByToken: ReadByToken = async (document, variables, caller) => {
    const result = await payments(print(document), variables ?? {}, caller);
    return { ...result, ...(result.errors ? { errors: clientErrors(format, result.errors, caller.requestId) } : {}) };
  };
  const subscriptions = await createSubscriptions({ bus, run, callSubgraph, readByToken });
  // A message is at most what an HTTP body may be (ws accepts 100 MiB by default).
  const wss = new WebSocketServer({ server: httpServer, path: "/graphql", maxPayload: MAX_BODY_BYTES });
  const sessions = new WeakMap<object, Authenticated>();
  const slotsFor = subscriptionSlots(limits);
  const connectionSlots = new WeakMap<object, ConnectionSlots>();
  // The rules Apollo Server validates an HTTP operation with: graphql-ws is handed a document it does not validate.
  const rules = [...specifiedRules, ...documentRules(limits), storableLiterals];
  const callerOf = (extra: { request: IncomingMessage }): Caller =>
    sessions.get(extra)?.caller ?? { ...anonymous, ip: extra.request.socket.remoteAddress };

  /** The connection's token expired or was revoked (logout, deactivation, suspension) since it connected. */
  const expired = (extra: object) => {
    const session = sessions.get(extra);
    return (session?.expiresAt !== undefined && session.expiresAt <= clock()) || session?.revoked?.() === true;
  };

  async function admit(extra: { socket: WebSocket; request: IncomingMessage }): Promise<GraphQLError[] | undefined> {
    if (expired(extra)) {
      return [
        new GraphQLError("the bearer token has expired or was revoked; reconnect with a new one", {
          extensions: { code: "unauthorized" },
        }),
      ];
    }
    // Operations already queued on a connection closed for its rate are not counted again.
    if (extra.socket.readyState !== extra.socket.OPEN) return [tooManyRequests()];
    if ((await takeApiLimit(limiter, callerOf(extra))).exceeded) {
      extra.socket.close(RATE_LIMITED_CLOSE, "Too many requests");
      return [tooManyRequests()];
    }
    return undefined;
  }
  /** The execution of one graphql-ws operation, or the errors that refuse it. */
  async function operation(
    extra: { socket: WebSocket; request: IncomingMessage },
    id: string,
    payload: SubscribePayload,
  ): Promise<ExecutionArgs | readonly GraphQLError[]> {
    const refused = await admit(extra);
    if (refused) return refused;
    const schema = apiSchema();
    const checked = limitedDocument(schema, payload.query, limits, rules);
    if ("errors" in checked) return checked.errors;
    const args = {
      schema,
      document: checked.document,
      operationName: payload.operationName,
      variableValues: payload.variables,
    };
    if (getOperationAST(args.document, args.operationName)?.operation !== OperationTypeNode.SUBSCRIPTION) {
      return sessions.get(extra)?.paymentToken ? [paymentTokenOnly()] : args;
    }
    const slots = connectionSlots.get(extra)!;
    const full = slots.take(id);
    if (full) return [full];
    let opened: Awaited<ReturnType<typeof subscriptions.open>> | undefined;
    try {
      opened = await subscriptions.open({
        schema,
        document: args.document,
        operationName: args.operationName ?? undefined,
        variables: args.variableValues ?? undefined,
        caller: callerOf(extra),
        paymentToken: sessions.get(extra)?.paymentToken,
        stillValid: () => !expired(extra),
        closeExpired: () => extra.socket.close(UNAUTHORIZED_CLOSE, "Token expired"),
      });
    } finally {
      if (!opened || "errors" in opened) slots.release(id);
    }
    if ("errors" in opened) return opened.errors;
    // The root value of a subscription is its stream of messages, which `subscribe` hands to graphql-ws.
    return { ...args, rootValue: opened.updates };
  }

  const cleanup = useServer<Record<string, unknown>, GatewayContext>(
    {
      onConnect: async (ctx) => {
        const { request, socket } = ctx.extra;
        try {
          const authenticated = await authenticator.authenticate(
            authorizationOf(ctx.connectionParams, request.headers.authorization),
            true,
          );
          // One request id for the connection's operations, the upgrade request's own when it names one.
          const caller: Caller = {
            ...authenticated.caller,
            ip: request.socket.remoteAddress,
            userAgent: request.headers["user-agent"],
            requestId: requestIdOf(request.headers[REQUEST_ID_HEADER]),
          };
          sessions.set(ctx.extra, { ...authenticated, caller });
          const { paymentToken } = authenticated;
          const subject = caller.id ? `${caller.type}:${caller.id}` : paymentToken && `payment_token:${paymentToken}`;
          connectionSlots.set(ctx.extra, slotsFor(subject));
          return true;
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          socket.close(UNAUTHORIZED_CLOSE, "Unauthorized");
          return false;
        }
      },
      onSubscribe: async (ctx, id, payload) => {
        try {
          return await operation(ctx.extra, id, payload);
        } catch (error) {
          // graphql-ws would close the socket (4500) with the error's message, and log it without the request.
          logUnexpectedError(callerOf(ctx.extra).requestId, error);
          return [internalError()];
        }
      },
      // Refusals and a subscription's failure: what no Apollo Server formatted is formatted (and logged) here.
      onError: (ctx, _id, _payload, errors) => clientErrors(format, errors, callerOf(ctx.extra).requestId),
      // Every subscription that was opened ends here: completed by either side, or its socket closed.
      onComplete: (ctx, id) => connectionSlots.get(ctx.extra)?.release(id),
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
