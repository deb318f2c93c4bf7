import { randomUUID } from "node:crypto";
import {
  type Caller,
  forbidden,
  isOperator,
  mapPage,
  ownMerchantScope,
  type PageArgs,
  parseInput,
  parsePage,
  requireOperator,
} from "@pos-cloud/common";
import { presentUndeliverableMessage } from "@pos-cloud/common/messages";
import { z } from "zod";
import type { NotificationRepository } from "./notification.repository";

export type NotificationService = ReturnType<typeof notificationService>;

export const notificationKinds = ["card_exchange_failed", "card_settlement_mismatch"] as const;
export type NotificationKind = (typeof notificationKinds)[number];

const filter = z.strictObject({
  kind: z.enum(notificationKinds).optional(),
  store_id: z.number().int().positive().optional(),
});

/**
 * What an operator must look at, kept in the POS database (the portal's development mailbox is in memory and for
 * MFA codes only): a system operator lists every merchant's, a merchant admin its own merchant's; nobody else.
 */
export function notificationService(notifications: NotificationRepository, clock: () => Date) {
  return {
    record: (notification: {
      kind: NotificationKind;
      merchant_id: number;
      store_id: number;
      settlement_id?: string;
      business_date?: string;
      message: string;
      details: Record<string, unknown>;
    }) =>
      notifications.create({
        id: randomUUID(),
        ...notification,
        details: JSON.parse(JSON.stringify(notification.details)),
        created_at: clock(),
      }),

    /**
     * For the console's open alerts: POS's receipts and operators' mails given up on. They carry no store, so only
     * system operators see the count (null for others), whichever store the overview names.
     */
    undeliverableCount: (caller: Caller) => (isOperator(caller) ? notifications.undeliverableCount() : null),

    /** The messages that count lists, newest first, their recipient masked and never their body. */
    async listUndeliverable(caller: Caller, args: PageArgs) {
      requireOperator(caller);
      return mapPage(await notifications.listUndeliverable(parsePage(args)), presentUndeliverableMessage);
    },

    async list(caller: Caller, args: { kind?: string | null; store_id?: number | null } & PageArgs) {
      const scope = ownMerchantScope(caller);
      if (!scope) throw forbidden("notifications are for system operators and merchant admins");
      const parsed = parseInput(filter, { kind: args.kind ?? undefined, store_id: args.store_id ?? undefined });
      return notifications.list({ ...scope, ...parsed }, parsePage(args));
    },
  };
}
