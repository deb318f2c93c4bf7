import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import { AppError, type Caller, type SecretBox } from "@pos-cloud/common";
import type { MessageOutbox } from "@pos-cloud/common/messages";
import { verify as verifyTotp } from "otplib";
import type { AuditLog } from "../audit/audit.repository";
import type { UserAuthentication, UserRow } from "../users";
import type { AuthRepository } from "./auth.repository";
import { isActive } from "./session.service";

const MINUTE_MS = 60_000;
/** How long after the password the MFA step may complete, and how long a sent code lives. */
export const MFA_CHALLENGE_MS = 10 * MINUTE_MS;
export const MFA_CODE_MS = 5 * MINUTE_MS;
export const MAX_MFA_ATTEMPTS = 5;
/** A new code by SMS or e-mail at most this often, so the endpoint cannot be used to flood a phone. */
export const MFA_RESEND_MS = 30_000;

export type MfaService = ReturnType<typeof mfaService>;

const codeHash = (challengeId: string, code: string) =>
  createHmac("sha256", challengeId).update(code).digest("base64url");

interface MfaDeps {
  users: UserAuthentication;
  auth: AuthRepository;
  audit: AuditLog;
  box: SecretBox;
  messages: Pick<MessageOutbox, "send">;
  clock: () => Date;
}

/** The user's open challenge, with the user, or a refusal: the password step must come first. */
async function pendingChallenge({ auth, users, clock }: MfaDeps, userId: string) {
  const challenge = await auth.currentChallenge(userId, clock()).catch(() => null);
  const user = challenge ? await users.find(userId) : null;
  if (!challenge || !isActive(user))
    throw new AppError("unauthorized", "no login is waiting for MFA; log in with your password first");
  return { challenge, user };
}

async function checkTotp(box: SecretBox, user: UserRow, code: string, now: Date) {
  if (!user.totp_secret || !/^[0-9]{6}$/.test(code)) return { valid: false };
  const result = await verifyTotp({
    secret: box.open(user.totp_secret),
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: 30,
    afterTimeStep: user.last_totp_step ?? undefined,
  });
  return { valid: result.valid, timeStep: result.valid && "timeStep" in result ? result.timeStep : undefined };
}

/** Codes by SMS or e-mail for the open challenge, at most one every 30 seconds. */
function mfaDelivery(deps: MfaDeps) {
  const { auth, audit, clock } = deps;
  return {
    /** Sends a code by SMS or e-mail; for TOTP there is nothing to send and the answer says so. */
    async send(userId: string, caller: Caller) {
      const { challenge, user } = await pendingChallenge(deps, userId);
      if (challenge.channel === "totp") {
        return {
          user_id: userId,
          channel: "totp",
          sent: false,
          expires_in: null,
          message: "enter the current code of your authenticator app",
        };
      }
      const now = clock();
      if (
        challenge.code_expires_at &&
        challenge.code_expires_at.getTime() - MFA_CODE_MS + MFA_RESEND_MS > now.getTime()
      )
        throw new AppError("rate_limit_exceeded", "a code was sent moments ago; wait 30 seconds for another");
      const code = String(randomInt(1_000_000)).padStart(6, "0");
      const expiresAt = new Date(now.getTime() + MFA_CODE_MS);
      await auth.setCode(challenge.id, codeHash(challenge.id, code), expiresAt);
      const channel = challenge.channel as "sms" | "email";
      // Queued before the first attempt: a relay or mail server that fails now gets the code again shortly.
      await deps.messages.send(
        {
          channel,
          to: (channel === "sms" ? user.phone : user.email) ?? "",
          subject: "Your POS Cloud login code",
          text: `Your login code is ${code}. It expires in 5 minutes.`,
        },
        { kind: "mfa_code", expiresAt },
      );
      await audit.record({ event: "user.mfa_sent", user_id: userId, success: true, metadata: { channel } }, caller);
      return {
        user_id: userId,
        channel,
        sent: true,
        expires_in: MFA_CODE_MS / 1000,
        message: `a code was sent by ${channel}`,
      };
    },
  };
}

/** The answer to the open challenge: once, within five attempts. */
function mfaVerification(deps: MfaDeps) {
  const { users, auth, audit, clock } = deps;
  return {
    /** Answers the open challenge; returns the user on success. A code works once; five wrong ones end the login. */
    async verify(userId: string, code: string, caller: Caller): Promise<UserRow> {
      const { challenge, user } = await pendingChallenge(deps, userId);
      const now = clock();
      let valid = false;
      let reason = "wrong_code";
      let timeStep: number | undefined;
      if (challenge.channel === "totp") {
        ({ valid, timeStep } = await checkTotp(deps.box, user, code, now));
      } else if (!challenge.code_hash || !challenge.code_expires_at) {
        reason = "no_code_sent";
      } else if (challenge.code_expires_at <= now) {
        reason = "code_expired";
      } else {
        const expected = Buffer.from(challenge.code_hash);
        const actual = Buffer.from(codeHash(challenge.id, code));
        valid = expected.length === actual.length && timingSafeEqual(expected, actual);
      }
      if (!valid || !(await auth.closeChallenge(challenge.id, now))) {
        const attempts = await auth.countAttempt(challenge.id);
        if (attempts >= MAX_MFA_ATTEMPTS) await auth.closeChallenge(challenge.id, now);
        await audit.record(
          {
            event: "user.mfa_verified",
            user_id: userId,
            success: false,
            metadata: { channel: challenge.channel, reason },
          },
          caller,
        );
        const message = reason === "code_expired" ? "the code has expired; send a new one" : "the code is wrong";
        throw new AppError("unauthorized", message, { reason });
      }
      if (timeStep !== undefined) await users.update(user.id, { last_totp_step: timeStep });
      await audit.record(
        { event: "user.mfa_verified", user_id: userId, success: true, metadata: { channel: challenge.channel } },
        caller,
      );
      return user;
    },
  };
}

/**
 * The second step of a password login. The password opens a challenge; it is answered once, by a TOTP code or a
 * code sent by SMS or e-mail, within five attempts.
 */
export function mfaService(deps: MfaDeps) {
  const { auth, clock } = deps;
  return {
    open: async (user: UserRow) => {
      const now = clock();
      await auth.openChallenge({
        user_id: user.id,
        channel: user.mfa_channel ?? "totp",
        expires_at: new Date(now.getTime() + MFA_CHALLENGE_MS),
        created_at: now,
      });
    },
    ...mfaDelivery(deps),
    ...mfaVerification(deps),
  };
}
