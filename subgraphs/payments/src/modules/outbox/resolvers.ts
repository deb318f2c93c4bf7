import type { Resolvers } from "../../resolvers.generated";

export const outboxResolvers: Resolvers = {
  Query: {
    failedOutboxEvents: (_, __, { outbox, caller }) => outbox.failedEvents(caller),
  },
  Mutation: {
    replayOutboxEvents: (_, { input }, { outbox, caller }) => outbox.replay(caller, input),
  },
  PaymentIntent: {
    events: ({ id }: { id: string }, _, { outbox }) => outbox.eventsOfIntent(id),
  },
};
