import type { ApolloServerPlugin, BaseContext } from "@apollo/server";
import { errorCodeOf } from "@pos-cloud/common";
import type { GraphQLFormattedError } from "graphql";

/**
 * A refusal of the request itself rather than of one field's work: `invalid_request` without a path. The edge's own
 * variable check throws one before the operation runs; a subgraph throws one for a variable of its own scalar
 * (`JSONObject`, `DateTime`), which the gateway passes on unchecked, and that one carries no path either because the
 * subgraph refused before any field ran. A service refusing an argument inside a resolver reports the field's path.
 */
const refusesRequest = (error: GraphQLFormattedError) =>
  errorCodeOf(error.extensions?.code) === "invalid_request" && error.path === undefined;

/**
 * The gateway answers a subgraph's refusal as any subgraph error, HTTP 200 with `data: null`; an answer that is
 * nothing but request refusals becomes what the edge answers when it refuses a variable itself, HTTP 400 without
 * `data`, so a client sees the same answer whichever layer checked the variable.
 */
export function refusedRequestsPlugin(): ApolloServerPlugin<BaseContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== "single") return;
          const result = response.body.singleResult;
          const nothingAnswered = result.data == null || Object.values(result.data).every((value) => value === null);
          if (nothingAnswered && result.errors?.length && result.errors.every(refusesRequest)) {
            response.http.status = 400;
            delete result.data;
          }
        },
      };
    },
  };
}
