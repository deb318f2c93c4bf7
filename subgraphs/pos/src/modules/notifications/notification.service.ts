import { randomUUID } from "node:crypto";
import { type Caller, forbidden, isOperator, type PageArgs, parseInput, parsePage, reachOf } from "@pos-cloud/common";
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
/** The notifications a caller sees: every merchant's for a system operator, its own for a merchant admin, else none. */
function scopeOf(caller: Caller): { merchant_id?: number } | undefined {
  if (caller.type !== "user") return undefined;
  const reach = reachOf(caller);
  if (reach.level === "platform") return {};
  return reach.level === "merchant" ? { merchant_id: reach.merchantId } : undefined;
}

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
     * For the console's open alerts: the days whose acquirer file differed from the card payments, of the stores the
     * caller's notifications cover (of one store when named); null for a caller who sees no notifications.
     */
    async differenceCount(caller: Caller, storeId: number | null | undefined) {
      const scope = scopeOf(caller);
      if (!scope) return null;
      const store = parseInput(filter, { store_id: storeId ?? undefined }).store_id;
      return notifications.count({ ...scope, kind: "card_settlement_mismatch", ...(store ? { store_id: store } : {}) });
    },

    /**
     * For the console's open alerts: POS's receipts and operators' mails given up on. They carry no store, so only
     * system operators see the count (null for others), whichever store the overview names.
     */
    undeliverableCount: (caller: Caller) => (isOperator(caller) ? notifications.undeliverableCount() : null),

    async list(caller: Caller, args: { kind?: string | null; store_id?: number | null } & PageArgs) {
      const scope = scopeOf(caller);
      if (!scope) throw forbidden("notifications are for system operators and merchant admins");
      const parsed = parseInput(filter, { kind: args.kind ?? undefined, store_id: args.store_id ?? undefined });
      return notifications.list({ ...scope, ...parsed }, parsePage(args));
    },
  };
}
