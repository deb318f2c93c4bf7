import type { Resolvers } from "@pos-cloud/common";
import type { PortalContext } from "../../context";

export const deviceTokenResolvers: Resolvers<PortalContext> = {
  Mutation: {
    issueDeviceToken: (_, request, { deviceTokens }) => deviceTokens.issue(request),
  },
};
