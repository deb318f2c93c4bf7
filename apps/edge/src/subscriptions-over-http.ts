import type { ApolloServerPlugin } from "@apollo/server";
import { AppError, asGraphQLError } from "@pos-cloud/common";
import { OperationTypeNode } from "graphql";

/** Over HTTP a subscription is a 400 that says where it is served (the gateway itself would fail with a 500). */
export const subscriptionsOverWebSocket: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) return;
        throw asGraphQLError(
          new AppError("invalid_request", "subscriptions are served over graphql-ws (WebSocket) on /graphql", {
            constraint: "graphql_ws",
          }),
        );
      },
    };
  },
};
