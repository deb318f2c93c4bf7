import type { Caller } from "@pos-cloud/common";
import type { PrismaClient } from "../../generated/prisma/client";

/** The spec's audit event names this portal writes (payment events are written elsewhere, but for the approval of a POS refund). */
export type AuditEvent =
  | "user.login"
  | "user.login_failed"
  | "user.mfa_sent"
  | "user.mfa_verified"
  | "user.logout"
  | "user.token_reuse"
  | "admin.impersonate"
  | "device.register"
  | "device.provision"
  | "device.activate"
  | "device.suspend"
  | "device.resume"
  | "device.transfer"
  | "device.decommission"
  | "payment.refunded";

export interface AuditEntry {
  event: AuditEvent;
  user_id: string | null;
  success: boolean;
  metadata?: Record<string, unknown>;
}

export type AuditLog = ReturnType<typeof auditLog>;

/** Append-only: security-relevant actions with who, from where (the caller's IP and user agent) and when. */
export function auditLog(prisma: PrismaClient, clock: () => Date) {
  return {
    record: (entry: AuditEntry, caller: Caller) =>
      prisma.auditLog.create({
        data: {
          event: entry.event,
          timestamp: clock(),
          user_id: entry.user_id,
          ip_address: caller.ip ?? null,
          user_agent: caller.userAgent ?? null,
          success: entry.success,
          metadata: (entry.metadata ?? {}) as object,
        },
      }),
    /** A user's entries, newest first (support and tests). */
    ofUser: (user_id: string) =>
      prisma.auditLog.findMany({ where: { user_id }, orderBy: [{ timestamp: "desc" }, { id: "desc" }], take: 100 }),
  };
}
