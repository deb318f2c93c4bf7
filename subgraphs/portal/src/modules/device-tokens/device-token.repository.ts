import { Prisma, type PrismaClient } from "../../generated/prisma/client";

export type DeviceTokenRepository = ReturnType<typeof deviceTokenRepository>;

export function deviceTokenRepository(prisma: PrismaClient) {
  return {
    /** Records an assertion id until it expires; false when the device already used it (a replay). */
    async useAssertion(client_id: string, jti: string, expires_at: Date, now: Date) {
      await prisma.usedAssertion.deleteMany({ where: { expires_at: { lt: now } } });
      try {
        await prisma.usedAssertion.create({ data: { client_id, jti, expires_at } });
        return true;
      } catch (error) {
        if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return false;
        throw error;
      }
    },
    touch: (id: string, last_connected_at: Date) =>
      prisma.device.update({ where: { id }, data: { last_connected_at } }),
  };
}
