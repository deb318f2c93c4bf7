import type { ReachableStore } from "@pos-cloud/common";
import type { Resolvers } from "../../resolvers.generated";

export const reconciliationResolvers: Resolvers = {
  Mutation: {
    resolveQrDifference: (_, { input }, { reconciliation, caller }) => reconciliation.resolve(caller, input),
  },
  Store: {
    qr_differences: (store: ReachableStore, { date }, { reconciliation, caller }) =>
      reconciliation.differencesOf(caller, store, date),
  },
};
