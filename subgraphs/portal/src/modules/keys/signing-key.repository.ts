import type { PrismaClient } from "../../generated/prisma/client";

export type SigningKeyRow = Awaited<ReturnType<PrismaClient["signingKey"]["findMany"]>>[number];
export type SigningKeyRepository = ReturnType<typeof signingKeyRepository>;

export function signingKeyRepository(prisma: PrismaClient) {
  return {
    /** The newest key's sealed private JWK, if any key was made. */
    newestSealed: () => prisma.signingKey.findFirst({ select: { private_jwk: true }, orderBy: { created_at: "desc" } }),
    /** Keys of a purpose that still verify at `since`: the signing one and those retired after `since`. */
    listVerifying: (purpose: string, since: Date) =>
      prisma.signingKey.findMany({
        where: { purpose, OR: [{ retired_at: null }, { retired_at: { gt: since } }] },
        orderBy: { created_at: "desc" },
      }),
    /** Adds a new signing key and retires the previous ones in one transaction. */
    replaceSigning: (key: Omit<SigningKeyRow, "retired_at">, now: Date) =>
      prisma.$transaction([
        prisma.signingKey.updateMany({ where: { purpose: key.purpose, retired_at: null }, data: { retired_at: now } }),
        prisma.signingKey.create({ data: { ...key, public_jwk: key.public_jwk ?? {} } }),
      ]),
  };
}
