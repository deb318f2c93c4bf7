import { RateLimiterPrisma } from "rate-limiter-flexible";
import type { PrismaClient } from "../../generated/prisma/client";

export type ProvisioningRepository = ReturnType<typeof provisioningRepository>;

export function provisioningRepository(prisma: PrismaClient) {
  return {
    /** A new live code for a device; its earlier codes stop working. */
    replaceCode: (device_id: string, code_hash: string, expires_at: Date) =>
      prisma.$transaction([
        prisma.activationCode.deleteMany({ where: { device_id, activated_at: null } }),
        prisma.activationCode.create({ data: { device_id, code_hash, expires_at } }),
      ]),
    /** A code staff issued for a store; the device that registers with it joins that store. */
    issueForStore: (store_id: number, code_hash: string, expires_at: Date) =>
      prisma.activationCode.create({ data: { store_id, code_hash, expires_at } }),
    /** Records which device a store's code bound. */
    bindCode: (code_hash: string, device_id: string) =>
      prisma.activationCode.update({ where: { code_hash }, data: { device_id } }),
    findCode: (code_hash: string) => prisma.activationCode.findUnique({ where: { code_hash } }),
    /** Marks a code used; false when it was already used (two activations racing). */
    async useCode(code_hash: string, now: Date) {
      const { count } = await prisma.activationCode.updateMany({
        where: { code_hash, activated_at: null },
        data: { activated_at: now },
      });
      return count === 1;
    },

    /**
     * A limiter whose counters live in this database, so every instance of the portal shares them. Its own cleanup
     * timer is off: it outlived the portal's database connection (`removeExpiredLimits` does that work instead).
     */
    rateLimiter: (options: { keyPrefix: string; points: number; duration: number }) =>
      new RateLimiterPrisma({ ...options, storeClient: prisma, tableName: "rateLimit", clearExpiredByTimeout: false }),
    /** Counters whose window ended before `now` (the limiter's own time, not a test's clock). */
    removeExpiredLimits: (now: Date) => prisma.rateLimit.deleteMany({ where: { expire: { lt: now } } }),
  };
}
