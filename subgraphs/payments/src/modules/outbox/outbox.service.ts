import { AppError, type Caller, intentOfEvent, invalidField, type ListPage, requireOperator } from "@pos-cloud/common";
import type { OutboxRow } from "@pos-cloud/common/outbox";
import type { OutboxRepository } from "./outbox.repository";

export type OutboxService = ReturnType<typeof outboxService>;

/** How many failed events one listing shows. */
const FAILED_PAGE = 100;

export interface ReplayInput {
  id?: string | null;
  all_failed?: boolean | null;
}

/** A page of a partner's events: what it asked for, checked by the caller. */
export interface PartnerEventsQuery {
  client_partner_id: number;
  types: string[];
  created_after?: Date;
  after?: string | null;
  limit: number;
}

/** Opaque to partners: the write order (`seq`) of the last event a page showed. */
const encodeSeq = (seq: bigint) => Buffer.from(`seq:${seq}`).toString("base64url");

function decodeSeq(after: string | null | undefined): bigint {
  if (after == null) return 0n;
  const match = /^seq:(\d{1,19})$/.exec(Buffer.from(after, "base64url").toString("utf8"));
  if (!match) throw invalidField("after", "cursor", "after must be the end_cursor of a page of this list");
  return BigInt(match[1]!);
}

/** Operators' view of the outbox: failed events, and putting them back in the queue. */
export function outboxService(outbox: OutboxRepository) {
  return {
    async failedEvents(caller: Caller) {
      requireOperator(caller);
      return outbox.failed(FAILED_PAGE);
    },

    /** Failed events back to pending with no attempts used: one by `id`, or every one with `all_failed`. */
    async replay(caller: Caller, input: ReplayInput) {
      requireOperator(caller);
      const id = input.id ?? null;
      if ((id === null) === (input.all_failed !== true)) {
        throw invalidField("id", "one_of", "give either id or all_failed: true");
      }
      const ids = await outbox.replay(id);
      if (id !== null && ids.length === 0) {
        throw new AppError("not_found", "no failed outbox event has this id", { field: "id", constraint: "failed" });
      }
      return { replayed: ids.length, ids };
    },

    /**
     * A partner's published events of the given types, in the order they were written (so each intent's in order),
     * from the cursor `after` on. The caller has checked that the partner is the one asking.
     */
    async partnerEvents(query: PartnerEventsQuery): Promise<ListPage<OutboxRow>> {
      const after_seq = decodeSeq(query.after);
      const { rows, total } = await outbox.partnerEvents({ ...query, after_seq }, query.limit + 1);
      const nodes = rows.slice(0, query.limit);
      const last = nodes.at(-1);
      return {
        nodes,
        total_count: total,
        page_info: { has_next_page: rows.length > query.limit, end_cursor: last ? encodeSeq(last.seq) : null },
      };
    },

    /** The events of an intent the caller has read already, as long as the outbox keeps them. */
    async eventsOfIntent(id: string) {
      const rows = await outbox.ofAggregate("payment_intent", id);
      return rows.map((row) => ({
        id: row.id,
        event_type: row.event_type,
        status: row.status,
        attempts: row.retry_count,
        intent_status: intentOfEvent(row)?.status ?? null,
        created_at: row.created_at,
        published_at: row.published_at,
      }));
    },
  };
}
