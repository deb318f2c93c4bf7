import { type AuditChange, auditOutboxRow, type Caller } from "@pos-cloud/common";
import type { Prisma } from "../../generated/prisma/client";

/** What is done to client partners and their keys, named as the portal's audit log names events. */
export type PartnerAuditEvent =
  | "partner.created"
  | "partner.deactivated"
  | "api_key.issued"
  | "api_key.rotated"
  | "api_key.renewed"
  | "api_key.revoked"
  | "api_key.expired"
  | "partner_grant.created"
  | "partner_grant.revoked";

export interface PartnerChange extends AuditChange {
  event: PartnerAuditEvent;
  target: { type: "client_partner" | "api_key" | "partner_grant"; id: string };
}

/** Who changed a row, as a column names them: `user:<id>`, `service:<id>`, or `platform` for the platform itself. */
export const actorName = (actor: Caller | null) => (actor ? `${actor.type}:${actor.id ?? ""}` : "platform");

/**
 * The one place partner changes are put on record: the audit log is the portal's, in another database, so the record
 * is an `audit.recorded` outbox event written in the change's own transaction (nothing is lost if the process dies
 * after the commit), which the portal appends to its log.
 */
export const auditPartnerChange = (tx: Prisma.TransactionClient, change: PartnerChange, at: Date) =>
  tx.outboxEvent.create({ data: auditOutboxRow(change, at) });
