import { type Page, readPage } from "@pos-cloud/common";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";

export type NotificationRepository = ReturnType<typeof notificationRepository>;

export function notificationRepository(prisma: PrismaClient) {
  return {
    create: (data: Prisma.PosNotificationUncheckedCreateInput) => prisma.posNotification.create({ data }),
    count: (where: Prisma.PosNotificationWhereInput) => prisma.posNotification.count({ where }),
    /** POS's e-mail and SMS given up on (`failed`: every attempt made, none left), as `MessageUndeliverable` counts them. */
    undeliverableCount: () => prisma.outgoingMessage.count({ where: { status: "failed" } }),
    list(where: Prisma.PosNotificationWhereInput, page: Page) {
      return readPage(page, {
        rows: (take) =>
          prisma.posNotification.findMany({
            where,
            orderBy: [{ created_at: "desc" }, { id: "asc" }],
            take,
            skip: page.offset,
          }),
        total: () => prisma.posNotification.count({ where }),
      });
    },
  };
}
