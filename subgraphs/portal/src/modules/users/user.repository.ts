import { readPage } from "@pos-cloud/common";
import type { AuditStep } from "../../audit-sink";
import type { Clock } from "../../clock";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import type { Page } from "../../validation";
import { endsSessions, revokeSessions } from "../revocations/session-revocations.repository";

export type UserRow = Awaited<ReturnType<PrismaClient["user"]["findMany"]>>[number];
export type UserRepository = ReturnType<typeof userRepository>;

/** Where a list of users may come from: the scope filter every list query carries. */
export interface UserScope {
  psp_id?: number;
  merchant_id?: number;
  store_ids?: number[];
  area_id?: string;
  store_id?: number;
  roles: string[];
}

/** The users of the given roles inside a scope; `store_ids` widens a store filter to an area's stores. */
function inScope(scope: UserScope, filter: { store_id?: number | { in: number[] }; role?: string }) {
  return {
    AND: [
      { role: { in: scope.roles } },
      scope.psp_id === undefined ? {} : { psp_id: scope.psp_id },
      scope.merchant_id === undefined ? {} : { merchant_id: scope.merchant_id },
      scope.store_ids === undefined ? {} : { store_id: { in: scope.store_ids } },
      scope.store_id === undefined ? {} : { store_id: scope.store_id },
      filter.store_id === undefined ? {} : { store_id: filter.store_id },
      filter.role === undefined ? {} : { role: filter.role },
    ],
  } satisfies Prisma.UserWhereInput;
}

const listOrder = [{ created_at: "asc" }, { id: "asc" }] satisfies Prisma.UserOrderByWithRelationInput[];

export function userRepository(prisma: PrismaClient, clock: Clock) {
  return {
    find: (id: string) => prisma.user.findUnique({ where: { id } }),
    findByLoginId: (login_id: string) => prisma.user.findUnique({ where: { login_id } }),
    findByEmail: (email: string) => prisma.user.findUnique({ where: { email } }),
    /** Creates a user and, in the same transaction, its audit record (`audit` takes the new user). */
    create: (data: Prisma.UserUncheckedCreateInput, audit: (user: UserRow) => AuditStep) =>
      prisma.$transaction(async (tx) => {
        const user = await tx.user.create({ data });
        await audit(user)(tx);
        return user;
      }),
    /**
     * A user who leaves active loses its sessions in the same transaction (its tokens stop working at the edge); the
     * change's audit record, when it has one, is written in it too.
     */
    update: (id: string, data: Prisma.UserUncheckedUpdateInput, audit?: AuditStep) =>
      prisma.$transaction(async (tx) => {
        const user = await tx.user.update({ where: { id }, data });
        if (endsSessions(data)) await revokeSessions(tx, `user:${id}`, clock());
        await audit?.(tx);
        return user;
      }),
    list(scope: UserScope, filter: { store_id?: number; role?: string }, page: Page) {
      const where = inScope(scope, filter);
      return readPage(page, {
        rows: (take) => prisma.user.findMany({ where, orderBy: listOrder, take, skip: page.offset }),
        total: () => prisma.user.count({ where }),
      });
    },
    /** The users of several stores inside a scope, unpaginated (a store's staff, a nested list). */
    ofStores: (scope: UserScope, storeIds: readonly number[]) =>
      prisma.user.findMany({ where: inScope(scope, { store_id: { in: [...storeIds] } }), orderBy: listOrder }),
    /** Counts a failed password and returns the new count; the increment is atomic across instances. */
    countFailedLogin: async (id: string) =>
      (await prisma.user.update({ where: { id }, data: { failed_logins: { increment: 1 } } })).failed_logins,
    countFailedPin: async (id: string) =>
      (await prisma.user.update({ where: { id }, data: { failed_pins: { increment: 1 } } })).failed_pins,
  };
}
