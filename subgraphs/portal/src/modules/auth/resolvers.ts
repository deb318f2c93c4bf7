import type { Resolvers } from "@pos-cloud/common";
import type { PortalContext } from "../../context";

type Args = Record<string, string | undefined | null>;

export const authResolvers: Resolvers<PortalContext> = {
  Mutation: {
    loginUser: (_, args: Args, { auth, caller }) =>
      auth.login({ login_id: args.login_id, email: args.email, password: args.password ?? "" }, caller),
    sendMfaCode: (_, { user_id }: Args, { auth, caller }) => auth.sendMfa(user_id!, caller),
    verifyMfaCode: (_, { user_id, code }: Args, { auth, caller }) => auth.verifyMfa(user_id!, code!, caller),
    pinLogin: (_, { login_id, pin }: Args, { auth, caller }) =>
      auth.pinLogin({ login_id: login_id!, pin: pin! }, caller),
    refreshToken: (_, { refresh_token }: Args, { auth, caller }) => auth.refresh(refresh_token!, caller),
    logout: (_, { refresh_token }: Args, { auth, caller }) => auth.logout(refresh_token, caller),
    impersonateUser: (_, { target_user_id }: Args, { auth, caller }) => auth.impersonate(target_user_id!, caller),
  },
};
