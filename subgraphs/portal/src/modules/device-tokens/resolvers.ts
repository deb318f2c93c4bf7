import type { Resolvers } from "../../resolvers.generated";

export const deviceTokenResolvers: Resolvers = {
  Mutation: {
    issueDeviceToken: (_, request, { deviceTokens }) => deviceTokens.issue(request),
  },
};
