import { type Page, readPage } from "@pos-cloud/common";
import { undeliverableMessages } from "@pos-cloud/common/messages";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";

export type NotificationRepository = ReturnType<typeof notificationRepository>;

export function notificationRepository(prisma: PrismaClient) {
  const undeliverable = undeliverableMessages(prisma.outgoingMessage);
  return {
    create: (data: Prisma.PosNotificationUncheckedCreateInput) => prisma.posNotification.create({ data }),
    /** POS's e-mail and SMS given up on, counted and read by `undeliverableMessages`. */
    undeliverableCount: undeliverable.count,
    listUndeliverable: undeliverable.page,
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
