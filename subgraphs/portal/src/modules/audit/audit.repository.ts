import { randomUUID } from "node:crypto";
import type { AuditPlace, AuditRecorded, AuditTarget, Caller } from "@pos-cloud/common";
import { auditUserId } from "@pos-cloud/common";
import type { AuditLog as AuditRow, Prisma, PrismaClient } from "../../generated/prisma/client";
import { chainHash, GENESIS_HASH, type HeadSeal, mayReseal } from "./audit-chain.rules";

/** The spec's audit event names this portal writes; the payments and POS records come in as `audit.recorded` events. */
export type AuditEvent =
  | "user.login"
  | "user.login_failed"
  | "user.mfa_sent"
  | "user.mfa_verified"
  | "user.logout"
  | "user.token_reuse"
  | "user.created"
  | "user.updated"
  | "user.deactivated"
  | "user.locked"
  | "user.unlocked"
  | "user.mfa_reset"
  | "admin.impersonate"
  | "device.register"
  | "device.provision"
  | "device.activate"
  | "device.suspend"
  | "device.resume"
  | "device.transfer"
  | "device.decommission"
  | "payment.refund_approved"
  | "settlement.approved";

export interface AuditEntry {
  event: AuditEvent;
  /** The user the record is about (logins) or who acted; the caller is the actor when it is a user. */
  user_id: string | null;
  success: boolean;
  /** What was acted on; a user's own events (logins) default to that user. */
  target?: AuditTarget;
  /** Where the target sits; the most specific id is enough (a store gives its merchant and PSP). */
  place?: AuditPlace;
  metadata?: Record<string, unknown>;
}

/** A record as it is appended, before its place in the chain is known. */
export type NewAuditRecord = AuditRecorded & { source_event_id?: string };

/** All appends of every process queue on this one lock (pg_advisory_xact_lock): one chain, never forked. */
const CHAIN_LOCK = 230_023n;

/** Appends queue on the chain's lock (and on PGlite's one connection): a burst of them waits its turn, not 2 s. */
const QUEUED = { maxWait: 20_000, timeout: 20_000 };

const normalized = (value: Record<string, unknown>) => JSON.parse(JSON.stringify(value)) as Prisma.JsonObject;

/**
 * Fills the place up the hierarchy from its most specific id, as it is when the record is written; a record about a
 * user that names no place (a login) takes the user's.
 */
async function placeOf(tx: Prisma.TransactionClient, given: AuditPlace, target: AuditTarget | null) {
  const named = given.psp_id != null || given.merchant_id != null || given.store_id != null;
  const place =
    named || target?.type !== "user"
      ? given
      : ((await tx.user.findUnique({
          where: { id: target.id },
          select: { psp_id: true, merchant_id: true, store_id: true },
        })) ?? {});
  let { psp_id = null, merchant_id = null } = place;
  const store_id = place.store_id ?? null;
  if (store_id !== null && merchant_id === null)
    merchant_id =
      (await tx.store.findUnique({ where: { id: store_id }, select: { merchant_id: true } }))?.merchant_id ?? null;
  if (merchant_id !== null && psp_id === null)
    psp_id = (await tx.merchant.findUnique({ where: { id: merchant_id }, select: { psp_id: true } }))?.psp_id ?? null;
  return { psp_id, merchant_id, store_id };
}

/**
 * Appends one record at the chain's head, in the caller's transaction (the change it records commits with it or not
 * at all), and seals the new head. A record of another subgraph's event is appended once: a second delivery of the
 * event changes nothing.
 */
async function appendAudit(tx: Prisma.TransactionClient, record: NewAuditRecord, seal: HeadSeal): Promise<void> {
  await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${CHAIN_LOCK})`;
  const source_event_id = record.source_event_id ?? null;
  if (source_event_id && (await tx.auditLog.findUnique({ where: { source_event_id }, select: { id: true } }))) return;
  const head = await tx.auditLog.findFirst({ orderBy: { seq: "desc" }, select: { seq: true, hash: true } });
  const row: Omit<AuditRow, "prev_hash" | "hash"> = {
    id: randomUUID(),
    seq: (head?.seq ?? 0n) + 1n,
    event: record.event,
    timestamp: new Date(record.timestamp),
    user_id: record.user_id,
    actor_type: record.actor_type,
    actor_id: record.actor_id,
    ip_address: record.ip_address,
    user_agent: record.user_agent,
    success: record.success,
    target_type: record.target?.type ?? null,
    target_id: record.target?.id ?? null,
    ...(await placeOf(tx, record.place, record.target)),
    metadata: normalized(record.metadata),
    source_event_id,
  };
  const prev_hash = head?.hash ?? GENESIS_HASH;
  const hash = chainHash(prev_hash, row);
  await tx.auditLog.create({ data: { ...row, metadata: row.metadata as Prisma.JsonObject, prev_hash, hash } });
  const sealed = await tx.auditChainHead.findUnique({ where: { id: 1 } });
  // A head that did not hold stays as it is, for verify to report; the record is kept all the same (evidence).
  if (sealed && mayReseal(seal, sealed, head)) {
    await tx.auditChainHead.update({
      where: { id: 1 },
      data: seal.seal({ first_seq: sealed.first_seq, seq: row.seq, hash }),
    });
  }
}

/** A portal entry as a record: the caller acts, or the user it is about when nobody is signed in (a login). */
export function auditRecordOf(entry: AuditEntry, caller: Caller, at: Date): NewAuditRecord {
  const signedIn = caller.type !== "anonymous";
  const userTarget = entry.user_id ? { type: "user", id: entry.user_id } : null;
  return {
    event: entry.event,
    timestamp: at.toISOString(),
    user_id: entry.user_id ?? auditUserId(caller),
    actor_type: signedIn ? caller.type : entry.user_id ? "user" : "anonymous",
    actor_id: (signedIn ? caller.id : entry.user_id) ?? null,
    ip_address: caller.ip ?? null,
    user_agent: caller.userAgent ?? null,
    success: entry.success,
    target: entry.target ?? userTarget,
    place: entry.place ?? {},
    metadata: entry.metadata ?? {},
  };
}

export interface AuditFilter {
  /** One event, or a family with a trailing `.*` (`payment.*`). */
  event?: string;
  actor?: string;
  target?: string;
  from?: Date;
  to?: Date;
}

export type AuditLog = ReturnType<typeof auditLog>;

/** Append-only: security-relevant actions with who, on what, where, from where (IP and user agent) and when. */
export function auditLog(prisma: PrismaClient, clock: () => Date, seal: HeadSeal) {
  const whereOf = (filter: AuditFilter, scope: Prisma.AuditLogWhereInput): Prisma.AuditLogWhereInput => ({
    AND: [
      scope,
      filter.event?.endsWith(".*") ? { event: { startsWith: filter.event.slice(0, -1) } } : { event: filter.event },
      filter.actor ? { OR: [{ actor_id: filter.actor }, { user_id: filter.actor }] } : {},
      { target_id: filter.target, timestamp: { gte: filter.from, lte: filter.to } },
    ],
  });
  return {
    /** An entry in a transaction of its own, for actions that change nothing else (a login, a refused secret). */
    record: (entry: AuditEntry, caller: Caller) =>
      prisma.$transaction((tx) => appendAudit(tx, auditRecordOf(entry, caller, clock()), seal), QUEUED),
    /** As a step of a change's own transaction: the record commits with the change or not at all. */
    append: (tx: Prisma.TransactionClient, record: NewAuditRecord) => appendAudit(tx, record, seal),
    /** Another subgraph's record (an `audit.recorded` event), once per event id. */
    recordEvent: (record: AuditRecorded, eventId: string) =>
      prisma.$transaction((tx) => appendAudit(tx, { ...record, source_event_id: eventId }, seal), QUEUED),
    /** The sealed head, for verify. */
    head: () => prisma.auditChainHead.findUnique({ where: { id: 1 } }),
    /** The stores of an area, for an area manager's scope. */
    storesOfArea: async (merchant_id: number, area_id: string) =>
      (await prisma.store.findMany({ where: { merchant_id, area_id }, select: { id: true } })).map(({ id }) => id),
    /** In seq `order`: `take` records past the one of seq `cursor` (a page's end), then `skip`. */
    list: (
      filter: AuditFilter,
      scope: Prisma.AuditLogWhereInput,
      page: { take: number; skip: number; cursor?: bigint; order: "asc" | "desc" },
    ) =>
      prisma.auditLog.findMany({
        where: {
          AND: [
            whereOf(filter, scope),
            page.cursor === undefined ? {} : { seq: page.order === "asc" ? { gt: page.cursor } : { lt: page.cursor } },
          ],
        },
        orderBy: { seq: page.order },
        take: page.take,
        skip: page.skip,
      }),
    count: (filter: AuditFilter, scope: Prisma.AuditLogWhereInput) =>
      prisma.auditLog.count({ where: whereOf(filter, scope) }),
    /** The whole chain in seq order, a batch at a time. */
    async *chain(batch = 1000) {
      let after = 0n;
      for (;;) {
        const rows = await prisma.auditLog.findMany({
          where: { seq: { gt: after } },
          orderBy: { seq: "asc" },
          take: batch,
        });
        yield* rows;
        if (rows.length < batch) return;
        after = rows.at(-1)!.seq;
      }
    },
    /** A user's entries, newest first (support and tests). */
    ofUser: (user_id: string) => prisma.auditLog.findMany({ where: { user_id }, orderBy: { seq: "desc" }, take: 100 }),
  };
}
