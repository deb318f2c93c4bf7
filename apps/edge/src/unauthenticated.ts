import type { ApolloServerPlugin, BaseContext } from "@apollo/server";
import type { GraphQLFormattedError } from "graphql";

export const UNAUTHENTICATED = "UNAUTHENTICATED";

const renamed = (error: GraphQLFormattedError): GraphQLFormattedError =>
  error.extensions?.code === "unauthorized"
    ? { ...error, extensions: { ...error.extensions, code: UNAUTHENTICATED } }
    : error;

/**
 * A missing or refused credential reaches GraphQL clients as `UNAUTHENTICATED`, the code they know (the services say
 * `unauthorized`, the REST face's code, which REST compat maps back), and an answer that is nothing but such errors
 * is HTTP 401: `{ stores { nodes { id } } }` without a token is refused, not answered with an empty list.
 */
export function unauthenticatedPlugin(): ApolloServerPlugin<BaseContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== "single" || !response.body.singleResult.errors) return;
          const result = response.body.singleResult;
          const errors = result.errors!.map(renamed);
          result.errors = errors;
          const nothingAnswered = result.data == null || Object.values(result.data).every((value) => value === null);
          if (nothingAnswered && errors.every((error) => error.extensions?.code === UNAUTHENTICATED)) {
            response.http.status = 401;
            response.http.headers.set("www-authenticate", "Bearer");
          }
        },
      };
    },
  };
}
