import { undeliverableMessages } from "@pos-cloud/common/messages";
import type { PrismaClient } from "../../generated/prisma/client";

export type MessageRepository = ReturnType<typeof messageRepository>;

/** The portal's `outgoing_messages`, read for people; the outbox (`@pos-cloud/common/messages`) writes them. */
export function messageRepository(prisma: PrismaClient) {
  const undeliverable = undeliverableMessages(prisma.outgoingMessage);
  return { undeliverableCount: undeliverable.count, listUndeliverable: undeliverable.page };
}
