import type { Resolvers } from "../../resolvers.generated";

export const revocationResolvers: Resolvers = {
  Query: {
    sessionRevocations: (_, { since }, { revocations, caller }) => revocations.inForce(caller, since ?? null),
  },
};
