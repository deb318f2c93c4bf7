import type { ApolloServerPlugin, BaseContext } from "@apollo/server";
import { errorCodeOf } from "@pos-cloud/common";

/**
 * An answer that is nothing but refused credentials (`UNAUTHENTICATED`, as the error formatter spells the services'
 * `unauthorized`) is HTTP 401: `{ stores { nodes { id } } }` without a token is refused, not answered with an empty
 * list.
 */
export function unauthenticatedPlugin(): ApolloServerPlugin<BaseContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== "single" || !response.body.singleResult.errors) return;
          const result = response.body.singleResult;
          const nothingAnswered = result.data == null || Object.values(result.data).every((value) => value === null);
          if (
            nothingAnswered &&
            result.errors!.every((error) => errorCodeOf(error.extensions?.code) === "unauthorized")
          ) {
            response.http.status = 401;
            response.http.headers.set("www-authenticate", "Bearer");
          }
        },
      };
    },
  };
}
