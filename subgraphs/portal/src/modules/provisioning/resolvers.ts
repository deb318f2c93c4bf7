import type { Resolvers } from "@pos-cloud/common";
import type { PortalContext } from "../../context";

export const provisioningResolvers: Resolvers<PortalContext> = {
  Query: {
    activationStatus: (_, { activation_code }, { provisioning, caller }) =>
      provisioning.activationStatus(caller, activation_code),
  },
  Mutation: {
    generateActivationCode: (_, { input }, { provisioning, caller }) =>
      provisioning.generateActivationCode(caller, input),
    activateDevice: (_, { input }, { provisioning, caller }) => provisioning.activate(caller, input),
  },
};
