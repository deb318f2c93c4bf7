import type { PrismaClient } from "../../generated/prisma/client";

export type RevocationRepository = ReturnType<typeof revocationRepository>;

export function revocationRepository(prisma: PrismaClient) {
  return {
    /** Revocations still in force at `now`, those written since `since` when given. */
    inForce: (now: Date, since: Date | null) =>
      prisma.sessionRevocation.findMany({
        where: { expires_at: { gt: now }, ...(since ? { revoked_before: { gte: since } } : {}) },
        orderBy: { revoked_before: "asc" },
      }),
  };
}
