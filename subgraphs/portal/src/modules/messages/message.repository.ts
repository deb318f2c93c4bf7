import type { PrismaClient } from "../../generated/prisma/client";

export type MessageRepository = ReturnType<typeof messageRepository>;

/** The portal's `outgoing_messages`, read for people; the outbox (`@pos-cloud/common/messages`) writes them. */
export function messageRepository(prisma: PrismaClient) {
  return {
    /** Mails and SMS given up on (`failed`: every attempt made, none left), as `MessageUndeliverable` counts them. */
    undeliverableCount: () => prisma.outgoingMessage.count({ where: { status: "failed" } }),
  };
}
