import type { Resolvers } from "../../resolvers.generated";
import type { DayRead } from "./settlement-days.service";

export const settlementResolvers: Resolvers = {
  Query: {
    settlements: (_, args, { settlements, caller }) => settlements.list(caller, args),
    settlement: (_, { id }, { settlements, caller }) => settlements.get(caller, id),
    storeDay: (_, args, { settlements, caller }) => settlements.day(caller, args),
  },
  Mutation: {
    createSettlement: (_, { input }, { settlements, caller }) => settlements.create(caller, input),
    closeSettlement: (_, { id, input }, { settlements, caller }) => settlements.close(caller, id, input),
    resolveCardSettlementDifferences: (_, { input }, { settlements, caller }) =>
      settlements.resolveCardDifferences(caller, input),
  },
  Settlement: {
    store: ({ store_id }: { store_id: number }) => ({ id: store_id }),
  },
  StoreDay: {
    store: ({ store_id }: { store_id: number }) => ({ id: store_id }),
    csv: (day: DayRead, _, { settlements }) => settlements.dayCsv(day),
  },
};
