import type { PrismaClient } from "../../generated/prisma/client";

/** POS's credentials at the payment gateway, newest last; the secret as stored (sealed). */
export function gatewayCredentialRepository(prisma: PrismaClient) {
  return {
    newest: () => prisma.gatewayCredential.findFirst({ orderBy: { id: "desc" } }),
    add: (row: { client_id: string; secret: string; created_at: Date }) =>
      prisma.gatewayCredential.create({ data: row }),
  };
}

export type GatewayCredentialRepository = ReturnType<typeof gatewayCredentialRepository>;
