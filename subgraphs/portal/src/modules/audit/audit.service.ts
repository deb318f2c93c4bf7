import {
  AUDIT_RECORDED,
  type Caller,
  invalidField,
  type ListPage,
  parseInput,
  reachOf,
  readEvent,
  requireAuditReader,
} from "@pos-cloud/common";
import type { BusEvent, MessageBus } from "@pos-cloud/common/messaging";
import type { AuditLog as AuditRow } from "../../generated/prisma/client";
import { type PageArgs, parsePage } from "../../validation";
import { auditScope } from "../tenants";
import { type AuditFilterInput, auditFilter } from "./audit.inputs";
import type { AuditLog } from "./audit.repository";
import { type BrokenLink, chainChecker, type HeadSeal } from "./audit-chain.rules";

export type AuditService = ReturnType<typeof auditService>;

/** Records an export reads per page. */
const EXPORT_PAGE = 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The longest range one export covers. */
const EXPORT_MAX_DAYS = 31;

/** An export's range: to defaults to now, from to the longest range before it; a longer one is refused. */
function exportRange(filter: AuditFilterInput, now: Date): AuditFilterInput {
  const to = filter.to ?? now;
  const from = filter.from ?? new Date(to.getTime() - EXPORT_MAX_DAYS * DAY_MS);
  if (to.getTime() - from.getTime() > EXPORT_MAX_DAYS * DAY_MS)
    throw invalidField("from", `max_range_${EXPORT_MAX_DAYS}_days`, `an export covers at most ${EXPORT_MAX_DAYS} days`);
  return { ...filter, from, to };
}

/** A page's end_cursor: the seq of its last record, opaque to clients. */
const encodeSeqCursor = (seq: bigint) => Buffer.from(`seq:${seq}`).toString("base64url");

function parseSeqCursor(after: string | null | undefined): bigint | undefined {
  if (after == null) return undefined;
  const match = /^seq:(\d{1,19})$/.exec(Buffer.from(after, "base64url").toString("utf8"));
  if (!match) throw invalidField("after", "cursor", "after must be the end_cursor of a page of this list");
  return BigInt(match[1]!);
}

const pageOf = (rows: AuditRow[], take: number, total_count: number): ListPage<AuditRow> => {
  const nodes = rows.slice(0, take);
  const last = nodes.at(-1);
  return {
    nodes,
    total_count,
    page_info: { has_next_page: rows.length > take, end_cursor: last ? encodeSeqCursor(last.seq) : null },
  };
};

/** The audit trail: appended by the portal's services and by the other subgraphs' events, read within scope. */
export function auditService(audit: AuditLog, clock: () => Date, seal: HeadSeal) {
  async function scopeOf(caller: Caller) {
    requireAuditReader(caller);
    const reach = reachOf(caller);
    return auditScope(caller, reach.level === "area" ? await audit.storesOfArea(reach.merchantId, reach.areaId) : []);
  }

  async function read(
    caller: Caller,
    rawFilter: unknown,
    page: { take: number; skip: number; after?: string | null },
    order: "asc" | "desc",
    range = false,
  ) {
    const scope = await scopeOf(caller);
    const parsed = parseInput(auditFilter, rawFilter ?? {});
    const filter = range ? exportRange(parsed, clock()) : parsed;
    const cursor = parseSeqCursor(page.after);
    const [rows, total] = await Promise.all([
      audit.list(filter, scope, { take: page.take + 1, skip: page.skip, cursor, order }),
      audit.count(filter, scope),
    ]);
    return pageOf(rows, page.take, total);
  }

  return {
    list: (caller: Caller, filter: unknown, page: PageArgs & { after?: string | null } = {}) => {
      const { limit, offset } = parsePage(page);
      return read(caller, filter, { take: limit, skip: offset, after: page.after }, "desc");
    },
    /** A range for export, oldest first, a large page at a time: at most EXPORT_MAX_DAYS. */
    exportPage: (caller: Caller, filter: unknown, after?: string | null) =>
      read(caller, filter, { take: EXPORT_PAGE, skip: 0, after }, "asc", true),

    /**
     * Appends the records other subgraphs send as `audit.recorded` events (payments, POS), once per event id: a
     * redelivered event is recognised by its id and changes nothing.
     */
    consume: (bus: MessageBus) =>
      bus.consume("events.internal", "portal-audit", async (event: BusEvent) => {
        if (event.event_type !== AUDIT_RECORDED) return;
        const read = readEvent(event);
        if (read?.event_type === AUDIT_RECORDED) await audit.recordEvent(read.payload, event.id);
      }),

    /**
     * Walks the chain from its first record, then checks its last against the sealed head: the first link that does
     * not hold, how many records were read, and how many predate the chain (unverifiable).
     */
    async verify(): Promise<{ records: number; unchained: number; broken?: BrokenLink }> {
      const check = chainChecker(seal, await audit.head());
      let records = 0;
      for await (const row of audit.chain()) {
        records++;
        const broken = check.next(row);
        if (broken) return { records, unchained: check.unchained(), broken };
      }
      const broken = check.end();
      return { records, unchained: check.unchained(), ...(broken ? { broken } : {}) };
    },
  };
}
