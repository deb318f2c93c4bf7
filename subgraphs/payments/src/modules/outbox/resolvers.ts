import type { Resolvers } from "@pos-cloud/common";
import type { PaymentsContext } from "../../context";

export const outboxResolvers: Resolvers<PaymentsContext> = {
  Query: {
    failedOutboxEvents: (_, __, { outbox, caller }) => outbox.failedEvents(caller),
  },
  Mutation: {
    replayOutboxEvents: (_, { input }, { outbox, caller }) => outbox.replay(caller, input),
  },
};
