import type { Caller } from "./caller";
import { type EventPayload, eventRow } from "./events";

/*
 * Audit records of the subgraphs that do not own the audit log (payments, POS). Each writes its records as
 * `audit.recorded` outbox events in the transaction of the change, and the portal's consumer appends them to its log
 * once per event id. The payload is the record as the portal stores it.
 */

export const AUDIT_RECORDED = "audit.recorded";

/** Where a record's target sits in the tenant hierarchy: what scopes who may read it. */
export interface AuditPlace {
  psp_id?: number | null;
  merchant_id?: number | null;
  store_id?: number | null;
}

export interface AuditTarget {
  type: string;
  id: string;
}

/** The audit record an `audit.recorded` event carries (its schema is in the event catalogue). */
export type AuditRecorded = EventPayload<"audit.recorded">;

/** A change to put on record: who (null: the platform itself), what, to what, where. */
export interface AuditChange {
  event: string;
  actor: Caller | null;
  target: AuditTarget;
  place?: AuditPlace;
  success?: boolean;
  metadata?: Record<string, unknown>;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The acting user's UUID when a user acted (the spec's `user_id`); other actors are named by type and id. */
export const auditUserId = (actor: Caller | null) =>
  actor?.type === "user" && actor.id && uuid.test(actor.id) ? actor.id : null;

/** The outbox row that carries a change's audit record, for the subgraph's `outbox_events` in the change's transaction. */
export function auditOutboxRow(change: AuditChange, at: Date) {
  const { actor, target } = change;
  const payload = {
    event: change.event,
    timestamp: at,
    user_id: auditUserId(actor),
    actor_type: actor?.type ?? "platform",
    actor_id: actor?.id ?? null,
    ip_address: actor?.ip ?? null,
    user_agent: actor?.userAgent ?? null,
    success: change.success ?? true,
    target,
    place: change.place ?? {},
    metadata: change.metadata ?? {},
  };
  return eventRow(AUDIT_RECORDED, `${target.type}:${target.id}`, payload, at);
}
