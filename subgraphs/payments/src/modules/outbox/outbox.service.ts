import { AppError, type Caller, invalidField, requireOperator } from "@pos-cloud/common";
import type { OutboxRepository } from "./outbox.repository";

export type OutboxService = ReturnType<typeof outboxService>;

/** How many failed events one listing shows. */
const FAILED_PAGE = 100;

export interface ReplayInput {
  id?: string | null;
  all_failed?: boolean | null;
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

    /** The events of an intent the caller has read already, as long as the outbox keeps them. */
    async eventsOfIntent(id: string) {
      const rows = await outbox.ofAggregate("payment_intent", id);
      return rows.map(({ id, event_type, status, retry_count, created_at, published_at, payload }) => ({
        id,
        event_type,
        status,
        attempts: retry_count,
        intent_status: (payload.payment_intent as { status?: string } | undefined)?.status ?? null,
        created_at,
        published_at,
      }));
    },
  };
}
