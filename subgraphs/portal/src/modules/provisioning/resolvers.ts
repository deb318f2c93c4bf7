import type { Resolvers } from "../../resolvers.generated";

export const provisioningResolvers: Resolvers = {
  Query: {
    activationStatus: (_, { activation_code }, { provisioning, caller }) =>
      provisioning.activationStatus(caller, activation_code),
  },
  Mutation: {
    generateActivationCode: (_, { input }, { provisioning, caller }) =>
      provisioning.generateActivationCode(caller, input),
    activateDevice: (_, { input }, { provisioning, caller }) => provisioning.activate(caller, input),
    issueActivationCode: (_, { input }, { provisioning, caller }) => provisioning.issueActivationCode(caller, input),
    registerDevice: (_, { activation_code, input }, { provisioning, caller }) =>
      provisioning.registerDevice(caller, { ...input, activation_code }),
  },
};
