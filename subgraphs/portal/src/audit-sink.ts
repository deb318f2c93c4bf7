import type { Caller } from "@pos-cloud/common";
import type { AuditLog, AuditEvent as LoggedEvent } from "./modules/audit/audit.repository";

/** A security-relevant action, as the spec's audit records name it (device.activate, device.suspend, ...). */
export interface AuditEvent {
  event: LoggedEvent;
  caller: Caller;
  success: boolean;
  metadata: Record<string, unknown>;
}

/**
 * Where audit events go. Device and tenant services write through this seam so they do not depend on how the
 * audit log is stored; the portal wires it to the audit log table.
 */
export interface AuditSink {
  record(event: AuditEvent): Promise<void>;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Writes to the audit log table; an actor without a user UUID (the platform itself) is named in the metadata. */
export function auditLogSink(audit: AuditLog): AuditSink {
  return {
    async record({ event, caller, success, metadata }) {
      const userId = caller.type === "user" && caller.id && uuid.test(caller.id) ? caller.id : null;
      const actor = userId ? {} : { actor: caller.id ?? caller.type };
      await audit.record({ event, user_id: userId, success, metadata: { ...metadata, ...actor } }, caller);
    },
  };
}
