import type { Resolvers } from "../../resolvers.generated";

export const keyResolvers: Resolvers = {
  Query: {
    jwks: (_, { purpose }, { signingKeys }) => signingKeys.jwks(purpose),
  },
};
