import { HUMAN_TOKEN_LIFETIME_SECONDS } from "@pos-cloud/common";
import type { Prisma } from "../../generated/prisma/client";

/** The longest-lived bearer token (a person's, 15 minutes; a terminal's lives 90 s): a revocation outlives none. */
const LONGEST_TOKEN_MS = HUMAN_TOKEN_LIFETIME_SECONDS * 1000;

/** A user, device, store or merchant whose status leaves active ends the sessions signed for it so far. */
export const endsSessions = (data: { status?: unknown }) => typeof data.status === "string" && data.status !== "active";

/**
 * Ends every bearer token of `subject` signed until `now`, in the transaction of the change that ends them (a
 * logout, a deactivation, a suspension), so the change and the revocation commit together. Revocations whose
 * tokens have all expired are deleted on the way.
 */
export async function revokeSessions(tx: Prisma.TransactionClient, subject: string, now: Date) {
  const expires = new Date(now.getTime() + LONGEST_TOKEN_MS);
  await tx.$executeRaw`DELETE FROM session_revocations WHERE expires_at <= ${now}`;
  await tx.$executeRaw`INSERT INTO session_revocations (subject, revoked_before, expires_at)
    VALUES (${subject}, ${now}, ${expires})
    ON CONFLICT (subject) DO UPDATE SET
      revoked_before = GREATEST(session_revocations.revoked_before, EXCLUDED.revoked_before),
      expires_at = GREATEST(session_revocations.expires_at, EXCLUDED.expires_at)`;
}
