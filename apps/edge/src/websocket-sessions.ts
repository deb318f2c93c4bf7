import type { IncomingMessage } from "node:http";
import { AppError, anonymous, type Caller, REQUEST_ID_HEADER, requestIdOf } from "@pos-cloud/common";
import type { Extra } from "graphql-ws/use/ws";
import type { Authenticated, Authenticator } from "./authenticate";
import type { GraphQLLimits } from "./graphql-limits";
import { type ConnectionSlots, subscriptionSlots } from "./subscription-slots";

/** Close code for a connection whose token was refused (graphql-ws reserves 4400-4499 for such reasons). */
export const UNAUTHORIZED_CLOSE = 4401;

/** A web view may name its payment token as such (`payment_token`), as the REST endpoints take it. */
const authorizationOf = (params: Record<string, unknown> | undefined, header: string | undefined) => {
  const value = params?.authorization ?? params?.Authorization ?? params?.payment_token ?? header;
  if (typeof value !== "string" || value === "") return undefined;
  // A bare token in the connection params is taken as a bearer token.
  return /^\S+$/.test(value) ? `Bearer ${value}` : value;
};

export type ConnectionSessions = ReturnType<typeof connectionSessions>;

/**
 * Who each graphql-ws connection authenticated as when it connected, whether its token still holds, and the
 * subscription slots it holds.
 */
export function connectionSessions(authenticator: Authenticator, limits: GraphQLLimits, clock: () => Date) {
  const sessions = new WeakMap<object, Authenticated>();
  const slotsFor = subscriptionSlots(limits);
  const connectionSlots = new WeakMap<object, ConnectionSlots>();

  return {
    /** Authenticates a connection once; a refused token closes it (4401) and answers false. */
    async connect(extra: Extra, params: Record<string, unknown> | undefined): Promise<boolean> {
      const { request, socket } = extra;
      try {
        const authenticated = await authenticator.authenticate(
          authorizationOf(params, request.headers.authorization),
          true,
        );
        // One request id for the connection's operations, the upgrade request's own when it names one.
        const caller: Caller = {
          ...authenticated.caller,
          ip: request.socket.remoteAddress,
          userAgent: request.headers["user-agent"],
          requestId: requestIdOf(request.headers[REQUEST_ID_HEADER]),
        };
        sessions.set(extra, { ...authenticated, caller });
        const { paymentToken } = authenticated;
        const subject = caller.id ? `${caller.type}:${caller.id}` : paymentToken && `payment_token:${paymentToken}`;
        connectionSlots.set(extra, slotsFor(subject));
        return true;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        socket.close(UNAUTHORIZED_CLOSE, "Unauthorized");
        return false;
      }
    },

    callerOf: (extra: { request: IncomingMessage }): Caller =>
      sessions.get(extra)?.caller ?? { ...anonymous, ip: extra.request.socket.remoteAddress },

    paymentTokenOf: (extra: object) => sessions.get(extra)?.paymentToken,

    /** The connection's token expired or was revoked (logout, deactivation, suspension) since it connected. */
    expired(extra: object) {
      const session = sessions.get(extra);
      return (session?.expiresAt !== undefined && session.expiresAt <= clock()) || session?.revoked?.() === true;
    },

    slotsOf: (extra: object) => connectionSlots.get(extra),
  };
}
