import { HUMAN_TOKEN_ISSUER, roles } from "@pos-cloud/common";
import {
  callerOf,
  PASSWORD,
  PIN,
  portalWithClock,
  seedTenant,
  totpCode,
  unusedLoginId,
} from "@pos-cloud/test-support/identity";
import { createLocalJWKSet, decodeJwt, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOGIN_LOCK_MS } from "./login-secrets.service";
import { MFA_CODE_MS } from "./mfa.service";

const MINUTE = 60_000;

describe("human authentication", () => {
  let env: Awaited<ReturnType<typeof portalWithClock>>;
  let tenant: Awaited<ReturnType<typeof seedTenant>>;
  const anonymousFrom = { type: "anonymous" as const, scopes: [], ip: "203.0.113.5", userAgent: "test-agent" };

  beforeAll(async () => {
    env = await portalWithClock();
    tenant = await seedTenant(env.portal);
  });
  afterAll(() => env?.close());

  const auth = () => env.portal.auth;

  it("logs in with password and TOTP, issuing an RS256 token with exactly the spec's claims", async () => {
    const admin = await tenant.user("MERCHANT_ADMIN");
    const login = await auth().login({ login_id: admin.login_id, password: PASSWORD }, anonymousFrom);
    expect(login).toEqual({ user_id: admin.id, mfa_required: true, mfa_channel: "totp" });
    expect(await auth().sendMfa(admin.id, anonymousFrom)).toMatchObject({ sent: false, channel: "totp" });
    const tokens = await auth().verifyMfa(admin.id, await totpCode(admin.totp_secret!, env.clock.now), anonymousFrom);
    expect(tokens).toMatchObject({
      expires_in: 900,
      token_type: "Bearer",
      refresh_token: expect.stringMatching(/^rt_/),
    });
    const jwks = createLocalJWKSet(await env.portal.signingKeys.jwks("human"));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
      currentDate: env.clock.now,
      algorithms: ["RS256"],
    });
    expect(protectedHeader.kid).toMatch(/^human-/);
    expect(Object.keys(payload).sort()).toEqual(
      ["area_id", "aud", "exp", "iat", "iss", "jti", "merchant_id", "psp_id", "role", "sid", "store_id", "sub"].sort(),
    );
    expect(payload).toMatchObject({
      iss: HUMAN_TOKEN_ISSUER,
      sub: admin.id,
      role: "MERCHANT_ADMIN",
      merchant_id: tenant.merchant.id,
      psp_id: tenant.psp.id,
      store_id: null,
      area_id: null,
    });
    expect(payload.exp! - payload.iat!).toBe(900);
    const audit = await env.portal.audit.ofUser(admin.id);
    expect(audit.map((entry) => entry.event)).toEqual(expect.arrayContaining(["user.login", "user.mfa_verified"]));
    expect(audit[0]).toMatchObject({ ip_address: "203.0.113.5", user_agent: "test-agent", success: true });
  });

  it("accepts a TOTP code once: the same code cannot finish a second login", async () => {
    const admin = await tenant.user("PSP_ADMIN");
    const code = await totpCode(admin.totp_secret!, env.clock.now);
    await auth().login({ login_id: admin.login_id, password: PASSWORD }, anonymousFrom);
    await auth().verifyMfa(admin.id, code, anonymousFrom);
    await expect(auth().verifyMfa(admin.id, code, anonymousFrom)).rejects.toMatchObject({ code: "unauthorized" });
    await auth().login({ login_id: admin.login_id, password: PASSWORD }, anonymousFrom);
    await expect(auth().verifyMfa(admin.id, code, anonymousFrom)).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("refuses MFA verification without a password login first", async () => {
    const admin = await tenant.user("MERCHANT_ADMIN");
    await expect(
      auth().verifyMfa(admin.id, await totpCode(admin.totp_secret!, env.clock.now), anonymousFrom),
    ).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("returns tokens at login when MFA is off, and accepts the e-mail instead of the login id", async () => {
    const email = `manager-${Date.now()}@example.com`;
    const manager = await tenant.user("STORE_MANAGER", { mfa_enabled: false, email });
    const login = await auth().login({ email: email.toUpperCase(), password: PASSWORD }, anonymousFrom);
    expect(login).toMatchObject({ user_id: manager.id, mfa_required: false, expires_in: 900 });
    expect(decodeJwt((login as { access_token: string }).access_token)).toMatchObject({
      role: "STORE_MANAGER",
      store_id: tenant.store.id,
    });
  });

  it("locks password login for 15 minutes after five failures", async () => {
    const manager = await tenant.user("STORE_MANAGER", { mfa_enabled: false });
    for (let i = 0; i < 5; i++) {
      await expect(
        auth().login({ login_id: manager.login_id, password: "wrong password!" }, anonymousFrom),
      ).rejects.toMatchObject({
        code: "unauthorized",
      });
    }
    await expect(auth().login({ login_id: manager.login_id, password: PASSWORD }, anonymousFrom)).rejects.toMatchObject(
      {
        code: "locked",
      },
    );
    env.advance(LOGIN_LOCK_MS - MINUTE);
    await expect(auth().login({ login_id: manager.login_id, password: PASSWORD }, anonymousFrom)).rejects.toMatchObject(
      {
        code: "locked",
      },
    );
    env.advance(2 * MINUTE);
    expect(await auth().login({ login_id: manager.login_id, password: PASSWORD }, anonymousFrom)).toMatchObject({
      mfa_required: false,
    });
    const failures = (await env.portal.audit.ofUser(manager.id)).filter((e) => e.event === "user.login_failed");
    expect(failures).toHaveLength(7);
  });

  it("answers unknown users like wrong passwords, and audits them", async () => {
    await expect(auth().login({ login_id: "SYS-NONE", password: PASSWORD }, anonymousFrom)).rejects.toMatchObject({
      code: "unauthorized",
      message: "the login id or the secret is wrong",
    });
  });

  /** What a client sees of a login attempt: the error's code and details, or "ok". */
  const outcome = (attempt: Promise<unknown>) =>
    attempt.then(
      () => "ok",
      (error: { code: string; details: unknown }) => ({ code: error.code, details: error.details }),
    );

  it("locks an unknown login id or e-mail after five failures exactly like a known one", async () => {
    const known = await tenant.user("STORE_MANAGER", { mfa_enabled: false });
    const unknownId = unusedLoginId(known.login_id);
    const tries = (given: { login_id?: string; email?: string }) => async () => {
      const seen = [];
      for (let i = 0; i < 6; i++)
        seen.push(await outcome(auth().login({ ...given, password: "wrong!" }, anonymousFrom)));
      return seen;
    };
    const knownSeen = await tries({ login_id: known.login_id })();
    expect(knownSeen.map((seen) => (typeof seen === "string" ? seen : seen.code))).toEqual([
      ...Array(5).fill("unauthorized"),
      "locked",
    ]);
    expect(await tries({ login_id: unknownId })()).toEqual(knownSeen);
    expect(await tries({ email: "Nobody-Here@example.com" })()).toEqual(knownSeen);
    expect(await outcome(auth().login({ email: "nobody-here@example.com", password: "x" }, anonymousFrom))).toEqual(
      knownSeen[5],
    );
    env.advance(LOGIN_LOCK_MS + MINUTE);
    expect(await outcome(auth().login({ login_id: unknownId, password: "wrong!" }, anonymousFrom))).toMatchObject({
      code: "unauthorized",
    });
  });

  it("locks PIN login of an unknown login id after five wrong PINs, as it does a known one", async () => {
    const staff = await tenant.user("STAFF");
    const unknownId = unusedLoginId(staff.login_id);
    const tries = async (login_id: string) => {
      const seen = [];
      for (let i = 0; i < 6; i++) seen.push(await outcome(auth().pinLogin({ login_id, pin: "000000" }, anonymousFrom)));
      return seen;
    };
    const knownSeen = await tries(staff.login_id);
    expect(knownSeen.at(-1)).toMatchObject({ code: "locked" });
    expect(await tries(unknownId)).toEqual(knownSeen);
    env.advance(24 * 60 * MINUTE);
    expect(await outcome(auth().pinLogin({ login_id: unknownId, pin: PIN }, anonymousFrom))).toEqual(knownSeen[5]);
  });

  it("locks PIN login after five wrong PINs until a store manager unlocks it", async () => {
    const staff = await tenant.user("STAFF");
    const leader = await tenant.user("STAFF_LEADER");
    const manager = await tenant.user("STORE_MANAGER");
    for (let i = 0; i < 5; i++) {
      await expect(auth().pinLogin({ login_id: staff.login_id, pin: "000000" }, anonymousFrom)).rejects.toMatchObject({
        code: "unauthorized",
      });
    }
    await expect(auth().pinLogin({ login_id: staff.login_id, pin: PIN }, anonymousFrom)).rejects.toMatchObject({
      code: "locked",
    });
    env.advance(24 * 60 * MINUTE);
    await expect(auth().pinLogin({ login_id: staff.login_id, pin: PIN }, anonymousFrom)).rejects.toMatchObject({
      code: "locked",
    });
    await expect(env.portal.users.unlock(callerOf(leader), staff.id)).rejects.toMatchObject({ code: "forbidden" });
    expect(await env.portal.users.unlock(callerOf(manager), staff.id)).toMatchObject({ pin_locked: false });
    expect(await auth().pinLogin({ login_id: staff.login_id, pin: PIN }, anonymousFrom)).toMatchObject({
      expires_in: 900,
    });
  });

  it("refuses PIN login for password tiers and password login for PIN tiers", async () => {
    const manager = await tenant.user("STORE_MANAGER");
    const staff = await tenant.user("STAFF");
    await expect(auth().pinLogin({ login_id: manager.login_id, pin: PIN }, anonymousFrom)).rejects.toMatchObject({
      code: "unauthorized",
    });
    await expect(auth().login({ login_id: staff.login_id, password: PIN }, anonymousFrom)).rejects.toMatchObject({
      code: "unauthorized",
    });
  });

  it("rotates refresh tokens, and a replayed one ends the whole session", async () => {
    const staff = await tenant.user("STAFF");
    const first = await auth().pinLogin({ login_id: staff.login_id, pin: PIN }, anonymousFrom);
    const second = await auth().refresh(first.refresh_token, anonymousFrom);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const third = await auth().refresh(second.refresh_token, anonymousFrom);
    await expect(auth().refresh(first.refresh_token, anonymousFrom)).rejects.toMatchObject({ code: "unauthorized" });
    await expect(auth().refresh(third.refresh_token, anonymousFrom)).rejects.toMatchObject({ code: "unauthorized" });
    const events = (await env.portal.audit.ofUser(staff.id)).map((entry) => entry.event);
    expect(events).toContain("user.token_reuse");
  });

  it("ends a session at logout", async () => {
    const staff = await tenant.user("STAFF");
    const tokens = await auth().pinLogin({ login_id: staff.login_id, pin: PIN }, anonymousFrom);
    expect(await auth().logout(tokens.refresh_token, anonymousFrom)).toBe(true);
    await expect(auth().refresh(tokens.refresh_token, anonymousFrom)).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("ends every session of the bearer's user at logout without a refresh token", async () => {
    const staff = await tenant.user("STAFF");
    const first = await auth().pinLogin({ login_id: staff.login_id, pin: PIN }, anonymousFrom);
    const second = await auth().pinLogin({ login_id: staff.login_id, pin: PIN }, anonymousFrom);
    await expect(auth().logout(undefined, anonymousFrom)).rejects.toMatchObject({ code: "unauthorized" });
    expect(await auth().logout(undefined, callerOf(staff))).toBe(true);
    for (const tokens of [first, second]) {
      await expect(auth().refresh(tokens.refresh_token, anonymousFrom)).rejects.toMatchObject({ code: "unauthorized" });
    }
    expect(await env.portal.audit.ofUser(staff.id)).toContainEqual(
      expect.objectContaining({ event: "user.logout", success: true, metadata: { scope: "all_sessions" } }),
    );
  });

  it("sends e-mail codes that expire after 5 minutes and allow five attempts", async () => {
    const email = `mfa-${Date.now()}@example.com`;
    const manager = await tenant.user("STORE_MANAGER", { mfa_channel: "email", email });
    await auth().login({ login_id: manager.login_id, password: PASSWORD }, anonymousFrom);
    expect(await auth().sendMfa(manager.id, anonymousFrom)).toMatchObject({
      sent: true,
      channel: "email",
      expires_in: 300,
    });
    const code = () => /(\d{6})/.exec(env.sent.at(-1)!.text)![1]!;
    expect(env.sent.at(-1)!.to).toBe(email);
    await expect(auth().sendMfa(manager.id, anonymousFrom)).rejects.toMatchObject({ code: "rate_limit_exceeded" });
    env.advance(MFA_CODE_MS + 1000);
    await expect(auth().verifyMfa(manager.id, code(), anonymousFrom)).rejects.toMatchObject({
      details: { reason: "code_expired" },
    });
    await auth().sendMfa(manager.id, anonymousFrom);
    expect(await auth().verifyMfa(manager.id, code(), anonymousFrom)).toMatchObject({ expires_in: 900 });

    await auth().login({ login_id: manager.login_id, password: PASSWORD }, anonymousFrom);
    await auth().sendMfa(manager.id, anonymousFrom);
    const right = code();
    const wrong = right === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) {
      await expect(auth().verifyMfa(manager.id, wrong, anonymousFrom)).rejects.toMatchObject({ code: "unauthorized" });
    }
    await expect(auth().verifyMfa(manager.id, right, anonymousFrom)).rejects.toMatchObject({ code: "unauthorized" });
  });

  describe("impersonation", () => {
    it("gives a token with the target's identity and impersonated_by, and audits it", async () => {
      const admin = await tenant.user("MERCHANT_ADMIN");
      const manager = await tenant.user("STORE_MANAGER");
      const { access_token } = await auth().impersonate(manager.id, callerOf(admin));
      expect(decodeJwt(access_token)).toMatchObject({
        sub: manager.id,
        role: "STORE_MANAGER",
        store_id: tenant.store.id,
        impersonated_by: admin.id,
      });
      const [entry] = await env.portal.audit.ofUser(admin.id);
      expect(entry).toMatchObject({
        event: "admin.impersonate",
        success: true,
        ip_address: "198.51.100.7",
        user_agent: "vitest",
        metadata: { admin_id: admin.id, target_user_id: manager.id, started_at: expect.any(String) },
      });
    });

    it("is refused for an equal or higher tier, out of scope, or from an impersonation session", async () => {
      const manager = await tenant.user("STORE_MANAGER");
      const peer = await tenant.user("STORE_MANAGER");
      const admin = await tenant.user("MERCHANT_ADMIN");
      const staff = await tenant.user("STAFF");
      const other = await seedTenant(env.portal);
      const foreignStaff = await other.user("STAFF");
      const forbidden = { code: "forbidden" };
      await expect(auth().impersonate(peer.id, callerOf(manager))).rejects.toMatchObject(forbidden);
      await expect(auth().impersonate(admin.id, callerOf(manager))).rejects.toMatchObject(forbidden);
      await expect(auth().impersonate(foreignStaff.id, callerOf(admin))).rejects.toMatchObject(forbidden);
      await expect(
        auth().impersonate(staff.id, { ...callerOf(manager), impersonatedBy: admin.id }),
      ).rejects.toMatchObject(forbidden);
      expect(roles.STAFF).toBeGreaterThan(roles.STORE_MANAGER);
      expect(await auth().impersonate(staff.id, callerOf(manager))).toHaveProperty("access_token");
    });
  });
});
