import type { AuditPlace, AuditTarget, Caller } from "@pos-cloud/common";
import type { Prisma } from "./generated/prisma/client";
import { type AuditLog, auditRecordOf, type AuditEvent as LoggedEvent } from "./modules/audit/audit.repository";

/** A security-relevant action, as the spec's audit records name it (device.activate, device.suspend, ...). */
export interface AuditEvent {
  event: LoggedEvent;
  caller: Caller;
  /** The user the record is about when nobody is signed in (a lockout after failed logins). */
  user_id?: string | null;
  success: boolean;
  target: AuditTarget;
  place?: AuditPlace;
  metadata: Record<string, unknown>;
}

/** The platform itself as an actor: what it does on its own (the demo tenant, a test's fixtures). */
export const platformActor: Caller = { type: "service", id: "platform", scopes: [] };

/**
 * Where audit events go. Device and tenant services write through this seam so they do not depend on how the
 * audit log is stored; the portal wires it to the audit log table.
 */
export interface AuditSink {
  /** In a transaction of its own: for an action that changes nothing else. */
  record(event: AuditEvent): Promise<void>;
  /** As a step of the change's own transaction: the record commits with the change or not at all. */
  step(event: AuditEvent): AuditStep;
}

/** Writes an audit record in the transaction a repository runs it in. */
export type AuditStep = (tx: Prisma.TransactionClient) => Promise<void>;

/** Writes to the audit log table, the caller as the actor. */
export function auditLogSink(audit: AuditLog, clock: () => Date): AuditSink {
  return {
    async record({ event, caller, user_id = null, ...entry }) {
      await audit.record({ event, user_id, ...entry }, caller);
    },
    step:
      ({ event, caller, user_id = null, ...entry }) =>
      (tx) =>
        audit.append(tx, auditRecordOf({ event, user_id, ...entry }, caller, clock())),
  };
}
