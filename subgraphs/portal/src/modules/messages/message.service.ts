import { type Caller, isOperator, mapPage, type PageArgs, parsePage, requireOperator } from "@pos-cloud/common";
import { presentUndeliverableMessage } from "@pos-cloud/common/messages";
import type { MessageRepository } from "./message.repository";

export type MessageService = ReturnType<typeof messageService>;

/**
 * What people may learn of the portal's own e-mail and SMS (login codes). They carry no tenant, so only system
 * operators see them (docs/decisions/console.md, "The messages given up on").
 */
export function messageService(messages: MessageRepository) {
  return {
    /** For the console's open alerts: the portal's messages given up on; null for all but operators (absent, not zero). */
    undeliverableCount: (caller: Caller) => (isOperator(caller) ? messages.undeliverableCount() : null),

    /** The messages that count lists, newest first, their recipient masked and never their body. */
    async listUndeliverable(caller: Caller, args: PageArgs) {
      requireOperator(caller);
      return mapPage(await messages.listUndeliverable(parsePage(args)), presentUndeliverableMessage);
    },
  };
}
