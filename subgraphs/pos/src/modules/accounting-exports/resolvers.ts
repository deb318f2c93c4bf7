import type { Resolvers } from "../../resolvers.generated";
import { givenArguments } from "../list-arguments";

export const accountingExportResolvers: Resolvers = {
  Query: {
    accountingExport: (_, { merchant_id }, { accountingExports, caller }) =>
      accountingExports.settings(caller, merchant_id),
    accountingExportDeliveries: (_, args, { accountingExports, caller }) => accountingExports.deliveries(caller, args),
  },
  Mutation: {
    configureAccountingExport: (_, { input }, { accountingExports, caller }) =>
      accountingExports.configureExport(caller, givenArguments(input)),
    resendAccountingExport: (_, { input }, { accountingExports, caller }) => accountingExports.resend(caller, input),
  },
};
