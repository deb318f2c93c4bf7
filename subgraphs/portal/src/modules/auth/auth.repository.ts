import { sessionSubject } from "@pos-cloud/common";
import type { PrismaClient } from "../../generated/prisma/client";
import { revokeSessions } from "../revocations/session-revocations.repository";

export type AuthRepository = ReturnType<typeof authRepository>;
export type MfaChallengeRow = Awaited<ReturnType<PrismaClient["mfaChallenge"]["findMany"]>>[number];
export type RefreshTokenRow = Awaited<ReturnType<PrismaClient["refreshToken"]["findMany"]>>[number];

export function authRepository(prisma: PrismaClient) {
  return {
    openChallenge: (data: { user_id: string; channel: string; expires_at: Date; created_at: Date }) =>
      prisma.$transaction([
        // A new password login replaces any challenge still open, so only the newest one can be answered.
        prisma.mfaChallenge.updateMany({
          where: { user_id: data.user_id, closed_at: null },
          data: { closed_at: data.created_at },
        }),
        prisma.mfaChallenge.create({ data }),
      ]),
    /** The user's challenge that can still be answered at `now`. */
    currentChallenge: (user_id: string, now: Date) =>
      prisma.mfaChallenge.findFirst({
        where: { user_id, closed_at: null, expires_at: { gt: now } },
        orderBy: { created_at: "desc" },
      }),
    setCode: (id: string, code_hash: string, code_expires_at: Date) =>
      prisma.mfaChallenge.update({ where: { id }, data: { code_hash, code_expires_at } }),
    countAttempt: async (id: string) =>
      (await prisma.mfaChallenge.update({ where: { id }, data: { attempts: { increment: 1 } } })).attempts,
    /** Closes a challenge once; false when another request closed it first, so a code works only once. */
    closeChallenge: async (id: string, now: Date) =>
      (await prisma.mfaChallenge.updateMany({ where: { id, closed_at: null }, data: { closed_at: now } })).count === 1,

    /** The failures counted against an identifier no active user answers to (its key, a hash), if any. */
    unknownLoginFailure: (key: string) => prisma.unknownLoginFailure.findUnique({ where: { key } }),
    /** Counts one more failure and returns the new count; one atomic upsert, so racing attempts all count. */
    countUnknownLoginFailure: async (key: string) =>
      (
        await prisma.unknownLoginFailure.upsert({
          where: { key },
          create: { key, failures: 1 },
          update: { failures: { increment: 1 } },
        })
      ).failures,
    lockUnknownLogin: (key: string, locked_at: Date) =>
      prisma.unknownLoginFailure.update({ where: { key }, data: { failures: 0, locked_at } }),

    createRefreshToken: (data: {
      family_id: string;
      user_id: string;
      token_hash: string;
      expires_at: Date;
      created_at: Date;
    }) => prisma.refreshToken.create({ data }),
    findRefreshToken: (token_hash: string) => prisma.refreshToken.findUnique({ where: { token_hash } }),
    /** Marks a refresh token used once; false when it had been used already (a replay). */
    useRefreshToken: async (id: string, now: Date) =>
      (await prisma.refreshToken.updateMany({ where: { id, used_at: null }, data: { used_at: now } })).count === 1,
    /**
     * Ends a session: its refresh tokens, and the access tokens signed for it so far (their `sid` is the family), so
     * that the holder of a stolen token is shut out at once rather than when its access token expires.
     */
    revokeFamily: (family_id: string, now: Date) =>
      prisma.$transaction(async (tx) => {
        await tx.refreshToken.updateMany({ where: { family_id, revoked_at: null }, data: { revoked_at: now } });
        await revokeSessions(tx, sessionSubject(family_id), now);
      }),
    /**
     * A logout: ends one session's refresh tokens (`family_id`) or all of the user's, and every access token of the
     * user signed until now, since access tokens do not say which session they belong to.
     */
    logOut: (user_id: string, family_id: string | undefined, now: Date) =>
      prisma.$transaction(async (tx) => {
        await tx.refreshToken.updateMany({
          where: { ...(family_id ? { family_id } : { user_id }), revoked_at: null },
          data: { revoked_at: now },
        });
        await revokeSessions(tx, `user:${user_id}`, now);
      }),
    /** Ends the access tokens of one session (an impersonation), and nothing of the person's other sessions. */
    endSession: (session_id: string, now: Date) =>
      prisma.$transaction((tx) => revokeSessions(tx, sessionSubject(session_id), now)),
  };
}
