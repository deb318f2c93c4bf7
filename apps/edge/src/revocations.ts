import { type Caller, logger, sessionSubject } from "@pos-cloud/common";
import { EdgeSessionRevocationsDocument } from "./operations/portal.generated";
import type { CallSubgraph } from "./subgraph-client";

/** How often each edge instance asks the portal for new revocations: a logout takes effect within about this long. */
const POLL_MS = 1000;
/**
 * Each poll reads again what was revoked this long before the newest revocation seen: a revocation is stamped when
 * its transaction runs and seen once it commits, so one that committed late is not skipped.
 */
const LATE_COMMIT_MS = 30_000;

/**
 * The subjects whose revocation ends a token: its own subject, the admin an impersonation acts for, the session it
 * belongs to (an impersonation's logout, a refresh token's reuse), and the store and merchant of a terminal or of a
 * person of one store (L4 to L6): deactivating either ends their tokens, since they work for that store alone (the
 * portal gives them no new ones either).
 */
export function revocationSubjects(caller: Caller): string[] {
  const own =
    caller.type === "user"
      ? [
          `user:${caller.id}`,
          ...(caller.impersonatedBy ? [`user:${caller.impersonatedBy}`] : []),
          ...(caller.sessionId ? [sessionSubject(caller.sessionId)] : []),
        ]
      : [`device:${caller.id}`];
  if (caller.type === "user" && caller.storeId === undefined) return own;
  return [
    ...own,
    ...(caller.storeId !== undefined ? [`store:${caller.storeId}`] : []),
    ...(caller.merchantId !== undefined ? [`merchant:${caller.merchantId}`] : []),
  ];
}

/**
 * The portal's session revocations ("tokens of S signed before T"), kept in memory and followed every second, so
 * that every request is checked without a call to the portal and a logout, deactivation or suspension reaches every
 * edge instance within seconds; an instance that starts reads those still in force before it honours any token.
 */
export function followRevocations(callSubgraph: CallSubgraph, clock: () => Date) {
  const revoked = new Map<string, { before: number; expiresAt: number }>();
  let newest: number | undefined;
  let loaded = false;
  let polling: Promise<void> | undefined;
  let failing = false;

  async function read() {
    const since = newest === undefined ? null : new Date(newest - LATE_COMMIT_MS).toISOString();
    const { sessionRevocations } = await callSubgraph("portal", EdgeSessionRevocationsDocument, { since });
    for (const { subject, revoked_before, expires_at } of sessionRevocations) {
      const before = Date.parse(revoked_before);
      if ((revoked.get(subject)?.before ?? -1) < before)
        revoked.set(subject, { before, expiresAt: Date.parse(expires_at) });
      newest = Math.max(newest ?? before, before);
    }
    const now = clock().getTime();
    for (const [subject, { expiresAt }] of revoked) if (expiresAt <= now) revoked.delete(subject);
    loaded = true;
  }
  const poll = () => {
    polling ??= read().finally(() => {
      polling = undefined;
    });
    return polling;
  };
  const timer = setInterval(() => {
    poll().then(
      () => {
        failing = false;
      },
      (error: unknown) => {
        if (!failing) logger.warn("could not read the session revocations; trying again every second", { error });
        failing = true;
      },
    );
  }, POLL_MS);
  timer.unref();

  return {
    /** Resolves once the revocations in force have been read (at least once since start). */
    ready: (): Promise<void> => (loaded ? Promise.resolve() : poll()),
    /**
     * The subject whose revocation ends a token for these subjects signed at `issuedAt` (seconds, as `iat`), or
     * undefined while none does: a look-up in memory.
     */
    revokedBy: (subjects: string[], issuedAt: number) =>
      subjects.find((subject) => {
        const revocation = revoked.get(subject);
        return revocation !== undefined && issuedAt * 1000 <= revocation.before;
      }),
    stop: () => clearInterval(timer),
  };
}

export type Revocations = ReturnType<typeof followRevocations>;
