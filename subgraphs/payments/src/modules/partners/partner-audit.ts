import { type Caller, newUlid } from "@pos-cloud/common";
import type { Prisma } from "../../generated/prisma/client";

/** What is done to client partners and their keys, named as the portal's audit log names events. */
export type PartnerAuditEvent =
  | "partner.created"
  | "partner.deactivated"
  | "api_key.issued"
  | "api_key.rotated"
  | "api_key.revoked"
  | "api_key.expired";

export interface PartnerChange {
  event: PartnerAuditEvent;
  /** Who made the change; null: the platform itself (an expiry). */
  actor: Caller | null;
  target: { type: "client_partner" | "api_key"; id: string };
  metadata?: Record<string, unknown>;
}

/**
 * The one place partner changes are put on record. The audit log is the portal's, in another database, so the record
 * is an `audit.recorded` outbox event written in the change's own transaction (nothing is lost if the process dies
 * after the commit); whatever consumes it writes the portal's audit entry: event, timestamp, user_id, ip_address,
 * user_agent, success and metadata, as the payload carries them.
 */
export function auditPartnerChange(tx: Prisma.TransactionClient, change: PartnerChange, at: Date) {
  const { actor, target } = change;
  return tx.outboxEvent.create({
    data: {
      id: newUlid(at.getTime()),
      event_type: "audit.recorded",
      aggregate_type: target.type,
      aggregate_id: target.id,
      payload: {
        event: change.event,
        timestamp: at.toISOString(),
        user_id: actor?.id ?? null,
        actor_type: actor?.type ?? "platform",
        ip_address: actor?.ip ?? null,
        user_agent: actor?.userAgent ?? null,
        success: true,
        metadata: JSON.parse(JSON.stringify({ ...change.metadata, [target.type]: target.id })),
      },
      created_at: at,
    },
  });
}
