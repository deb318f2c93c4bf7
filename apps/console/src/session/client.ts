import { ApolloClient, ApolloLink, CombinedGraphQLErrors, HttpLink, InMemoryCache } from "@apollo/client";
import { SetContextLink } from "@apollo/client/link/context";
import { ErrorLink } from "@apollo/client/link/error";
import { GraphQLWsLink } from "@apollo/client/link/subscriptions";
import { getMainDefinition } from "@apollo/client/utilities";
import { createClient } from "graphql-ws";
import { from, mergeMap } from "rxjs";
import { RefreshTokenDocument } from "../graphql/graphql";
import { liveConnectionEvents } from "./live";
import { session } from "./session";

/** Operations a person runs before having a session: they carry no bearer token and are never refreshed. */
const anonymousOperations = new Set(["LoginUser", "VerifyMfaCode", "RefreshToken"]);

const bearer = () => {
  const token = session.accessToken();
  return token ? `Bearer ${token}` : undefined;
};

const auth = new SetContextLink((previous, operation) => {
  const authorization = anonymousOperations.has(operation.operationName ?? "") ? undefined : bearer();
  return authorization ? { headers: { ...previous.headers, authorization } } : {};
});

let refreshing: Promise<void> | null = null;

/**
 * New tokens for the session, one request at a time: a refresh token works once, so two refreshes racing would
 * revoke the session. An impersonation has no refresh token: when it ends, the operator's own session comes back.
 */
export function refreshSession(): Promise<void> {
  refreshing ??= (async () => {
    const refresh_token = session.refreshToken();
    if (!refresh_token) {
      if (!session.endImpersonation()) session.end("expired");
      return;
    }
    try {
      const { data } = await client.mutate({ mutation: RefreshTokenDocument, variables: { refresh_token } });
      if (data) session.renew(data.refreshToken);
    } catch (error) {
      session.end("expired");
      throw error;
    }
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/**
 * A logout is never sent again with a fresh token: an impersonation's expired token would be swapped for the
 * operator's own, and a logout without a refresh token in the operator's name ends every session of theirs.
 */
const neverRetried = new Set([...anonymousOperations, "Logout"]);

const retryWithFreshToken = new ErrorLink(({ error, operation, forward }) => {
  if (neverRetried.has(operation.operationName ?? "")) return;
  if (!CombinedGraphQLErrors.is(error) || !error.errors.some((e) => e.extensions?.code === "UNAUTHENTICATED")) return;
  return from(refreshSession()).pipe(mergeMap(() => forward(operation)));
});

/** Waits between reconnection attempts: 1, 2, 4 s, then every 5 s, for as long as a live view is open. */
const RETRY_WAIT_MS = [1_000, 2_000, 4_000, 5_000];
/** A ping unanswered this long means a dead socket (a laptop that slept): it is closed and opened again. */
const PONG_TIMEOUT_MS = 5_000;
let pongTimeout: ReturnType<typeof setTimeout> | undefined;

const websocket = createClient({
  url: `${window.location.origin.replace(/^http/, "ws")}/graphql`,
  lazy: true,
  connectionParams: () => ({ authorization: bearer() }),
  retryAttempts: Number.POSITIVE_INFINITY,
  retryWait: (retries) =>
    new Promise((resolve) => setTimeout(resolve, RETRY_WAIT_MS[Math.min(retries, RETRY_WAIT_MS.length - 1)])),
  shouldRetry: () => true,
  keepAlive: 10_000,
  on: {
    ...liveConnectionEvents,
    ping: (received) => {
      if (!received) pongTimeout = setTimeout(() => websocket.terminate(), PONG_TIMEOUT_MS);
    },
    pong: (received) => {
      if (received) clearTimeout(pongTimeout);
    },
  },
});
// A live view's connection is authenticated once: a new token (refresh, impersonation) opens a new connection.
let connectedWith = session.accessToken();
session.subscribe(() => {
  if (session.accessToken() === connectedWith) return;
  connectedWith = session.accessToken();
  websocket.terminate();
});

const isSubscription = ({ query }: ApolloLink.Operation) => {
  const definition = getMainDefinition(query);
  return definition.kind === "OperationDefinition" && definition.operation === "subscription";
};

export const client: ApolloClient = new ApolloClient({
  link: ApolloLink.from([
    retryWithFreshToken,
    auth,
    ApolloLink.split(isSubscription, new GraphQLWsLink(websocket), new HttpLink({ uri: "/graphql" })),
  ]),
  cache: new InMemoryCache(),
  // A live page reads again after each event; joining a read already in flight would return the state from before it.
  queryDeduplication: false,
  defaultOptions: { watchQuery: { fetchPolicy: "cache-and-network" } },
});
