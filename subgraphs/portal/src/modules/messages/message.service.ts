import { type Caller, isOperator } from "@pos-cloud/common";
import type { MessageRepository } from "./message.repository";

export type MessageService = ReturnType<typeof messageService>;

/** What people may learn of the portal's own e-mail and SMS (login codes). */
export function messageService(messages: MessageRepository) {
  return {
    /**
     * For the console's open alerts: the portal's messages given up on. They carry no tenant, so only system
     * operators see the count; null for everyone else (absent, not zero).
     */
    undeliverableCount: (caller: Caller) => (isOperator(caller) ? messages.undeliverableCount() : null),
  };
}
