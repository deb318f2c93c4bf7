import type { Resolvers } from "../../resolvers.generated";

export const authResolvers: Resolvers = {
  Mutation: {
    loginUser: (_, { input }, { auth, caller }) => auth.login(input, caller),
    sendMfaCode: (_, { user_id }, { auth, caller }) => auth.sendMfa(user_id, caller),
    verifyMfaCode: (_, { input }, { auth, caller }) => auth.verifyMfa(input.user_id, input.code, caller),
    pinLogin: (_, { input }, { auth, caller }) => auth.pinLogin(input, caller),
    refreshToken: (_, { refresh_token }, { auth, caller }) => auth.refresh(refresh_token, caller),
    logout: (_, { refresh_token }, { auth, caller }) => auth.logout(refresh_token, caller),
    approveRefund: (_, { input }, { auth, caller }) => auth.approveRefund(input, caller),
    approveSettlement: (_, { input }, { auth, caller }) => auth.approveSettlement(input, caller),
    impersonateUser: (_, { target_user_id }, { auth, caller }) => auth.impersonate(target_user_id, caller),
  },
};
