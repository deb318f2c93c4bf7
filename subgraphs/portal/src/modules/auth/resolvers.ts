import type { Resolvers } from "../../resolvers.generated";

export const authResolvers: Resolvers = {
  Mutation: {
    loginUser: (_, { input }, { auth, caller }) => auth.login(input, caller),
    sendMfaCode: (_, { user_id }, { auth, caller }) => auth.sendMfa(user_id, caller),
    verifyMfaCode: (_, { user_id, code }, { auth, caller }) => auth.verifyMfa(user_id, code, caller),
    pinLogin: (_, { login_id, pin }, { auth, caller }) => auth.pinLogin({ login_id, pin }, caller),
    refreshToken: (_, { refresh_token }, { auth, caller }) => auth.refresh(refresh_token, caller),
    logout: (_, { refresh_token }, { auth, caller }) => auth.logout(refresh_token, caller),
    impersonateUser: (_, { target_user_id }, { auth, caller }) => auth.impersonate(target_user_id, caller),
  },
};
