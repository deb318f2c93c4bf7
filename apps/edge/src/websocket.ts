import type { Server } from "node:http";
import type { ApolloServer } from "@apollo/server";
import { AppError, type Caller } from "@pos-cloud/common";
import { type ExecutionResult, GraphQLError, type GraphQLSchema, print } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import type { Authenticated, Authenticator } from "./authenticate";
import type { GatewayContext } from "./gateway";

/** Close code for a connection whose token was refused (graphql-ws reserves 4400-4499 for such reasons). */
const UNAUTHORIZED_CLOSE = 4401;

const authorizationOf = (params: Record<string, unknown> | undefined, header: string | undefined) => {
  const value = params?.authorization ?? params?.Authorization ?? header;
  if (typeof value !== "string" || value === "") return undefined;
  // A bare token in the connection params is taken as a bearer token.
  return /^\S+$/.test(value) ? `Bearer ${value}` : value;
};

/**
 * graphql-ws on `/graphql` of the same port. The connection authenticates once (`connectionParams.authorization`
 * or `Authorization`, else the upgrade request's header); operations after its token expired are refused, so a
 * client reconnects with a fresh token. Queries and mutations run through the gateway exactly as over HTTP.
 */
export function attachWebSocket(
  httpServer: Server,
  graphql: ApolloServer<GatewayContext>,
  apiSchema: () => GraphQLSchema,
  authenticator: Authenticator,
  clock: () => Date = () => new Date(),
) {
  const wss = new WebSocketServer({ server: httpServer, path: "/graphql" });
  const sessions = new WeakMap<object, Authenticated>();
  const cleanup = useServer<Record<string, unknown>, GatewayContext>(
    {
      schema: () => apiSchema(),
      onConnect: async (ctx) => {
        const { request, socket } = ctx.extra;
        try {
          const authenticated = await authenticator.authenticate(
            authorizationOf(ctx.connectionParams, request.headers.authorization),
          );
          const caller: Caller = {
            ...authenticated.caller,
            ip: request.socket.remoteAddress,
            userAgent: request.headers["user-agent"],
          };
          sessions.set(ctx.extra, { ...authenticated, caller });
          return true;
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          socket.close(UNAUTHORIZED_CLOSE, "Unauthorized");
          return false;
        }
      },
      onSubscribe: (ctx) => {
        const expiresAt = sessions.get(ctx.extra)?.expiresAt;
        if (expiresAt && expiresAt <= clock()) {
          return [
            new GraphQLError("the bearer token has expired; reconnect with a new one", {
              extensions: { code: "unauthorized" },
            }),
          ];
        }
        return undefined;
      },
      context: (ctx) => ({ caller: sessions.get(ctx.extra)?.caller ?? { type: "anonymous", scopes: [] } }),
      execute: async (args) => {
        const response = await graphql.executeOperation(
          {
            query: print(args.document),
            variables: args.variableValues as Record<string, unknown> | undefined,
            operationName: args.operationName ?? undefined,
          },
          { contextValue: args.contextValue as GatewayContext },
        );
        return (response.body.kind === "single" ? response.body.singleResult : { errors: [] }) as ExecutionResult;
      },
    },
    wss,
  );
  return {
    close: async () => {
      await cleanup.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
