import { withoutNulls } from "@pos-cloud/common";
import type { Resolvers } from "../../resolvers.generated";

export const auditResolvers: Resolvers = {
  Query: {
    auditLog: (_, { filter, after, ...page }, { auditTrail, caller }) =>
      auditTrail.list(caller, withoutNulls(filter), { ...page, after }),
    auditLogExport: (_, { filter, after }, { auditTrail, caller }) =>
      auditTrail.exportPage(caller, withoutNulls(filter), after),
  },
  AuditRecord: {
    seq: ({ seq }: { seq: bigint }) => String(seq),
  },
};
