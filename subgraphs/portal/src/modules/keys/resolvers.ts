import type { Resolvers } from "@pos-cloud/common";
import type { PortalContext } from "../../context";
import type { KeyPurpose } from "./signing-key.service";

export const keyResolvers: Resolvers<PortalContext> = {
  Query: {
    jwks: (_, { purpose }: { purpose: KeyPurpose }, { signingKeys }) => signingKeys.jwks(purpose),
  },
};
