import type { Resolvers } from "../../resolvers.generated";

export const deviceTokenResolvers: Resolvers = {
  Mutation: {
    issueDeviceToken: (_, { input }, { deviceTokens }) => deviceTokens.issue(input),
  },
};
