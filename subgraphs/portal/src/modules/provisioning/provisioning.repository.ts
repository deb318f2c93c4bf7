import { Prisma, type PrismaClient } from "../../generated/prisma/client";

export type ProvisioningRepository = ReturnType<typeof provisioningRepository>;

export function provisioningRepository(prisma: PrismaClient) {
  return {
    /** A new live code for a device; its earlier codes stop working. */
    replaceCode: (device_id: string, code_hash: string, expires_at: Date) =>
      prisma.$transaction([
        prisma.activationCode.deleteMany({ where: { device_id, activated_at: null } }),
        prisma.activationCode.create({ data: { device_id, code_hash, expires_at } }),
      ]),
    findCode: (code_hash: string) => prisma.activationCode.findUnique({ where: { code_hash } }),
    /** Marks a code used; false when it was already used (two activations racing). */
    async useCode(code_hash: string, now: Date) {
      const { count } = await prisma.activationCode.updateMany({
        where: { code_hash, activated_at: null },
        data: { activated_at: now },
      });
      return count === 1;
    },

    /** Counts a hit in a fixed window shared by every instance; returns the count including this hit. */
    async hit(key: string, window_start: Date): Promise<number> {
      await prisma.rateCounter.deleteMany({ where: { key, window_start: { lt: window_start } } });
      for (let attempt = 0; ; attempt++) {
        try {
          const row = await prisma.rateCounter.upsert({
            where: { key_window_start: { key, window_start } },
            create: { key, window_start, count: 1 },
            update: { count: { increment: 1 } },
          });
          return row.count;
        } catch (error) {
          // Two first hits of a window race on the insert; the loser increments the winner's row.
          const race = error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
          if (!race || attempt > 0) throw error;
        }
      }
    },
  };
}
