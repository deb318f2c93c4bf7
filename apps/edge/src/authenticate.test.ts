import { randomUUID } from "node:crypto";
import { DEFAULT_API_AUDIENCE, DEVICE_TOKEN_ISSUER, HUMAN_TOKEN_ISSUER } from "@pos-cloud/common";
import { exportJWK, generateKeyPair, type JWK, SignJWT, UnsecuredJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { createAuthenticator } from "./authenticate";
import type { CallSubgraph } from "./subgraph-client";

// The portal's JWKS stands in here as plain data: these tests are about the edge's checks, not key storage.
describe("bearer token authentication at the edge", () => {
  let now = new Date("2026-05-01T00:00:00Z");
  const clock = () => now;
  const jwks: Record<string, JWK[]> = { human: [], device: [] };
  let fetches = 0;
  let revocations: { subject: string; revoked_before: string; expires_at: string }[] = [];
  const callSubgraph = (async (_: string, __: unknown, variables: { purpose?: unknown }) => {
    if (!variables.purpose) return { sessionRevocations: revocations };
    fetches++;
    return { jwks: { keys: jwks[variables.purpose as string] } };
  }) as CallSubgraph;
  let rsa: Awaited<ReturnType<typeof generateKeyPair>>;
  let ec: Awaited<ReturnType<typeof generateKeyPair>>;
  let rsaPublic: JWK;

  const seconds = () => Math.floor(now.getTime() / 1000);
  /** What the portal puts in every access token: the API's audience and an id of its own. */
  const forTheApi = () => ({ aud: DEFAULT_API_AUDIENCE, jti: randomUUID() });
  const human = (claims: Record<string, unknown> = {}, kid = "human-1", key = rsa.privateKey) =>
    new SignJWT({
      ...forTheApi(),
      iss: HUMAN_TOKEN_ISSUER,
      sub: "6f1c2b9e-0000-4000-8000-000000000001",
      role: "STORE_MANAGER",
      psp_id: 1,
      merchant_id: 2,
      store_id: 3,
      area_id: null,
      ...claims,
    })
      .setProtectedHeader({ alg: "RS256", kid })
      .setIssuedAt(seconds())
      .setExpirationTime(seconds() + 900)
      .sign(key);

  beforeAll(async () => {
    rsa = await generateKeyPair("RS256", { extractable: true });
    ec = await generateKeyPair("ES256", { extractable: true });
    rsaPublic = { ...(await exportJWK(rsa.publicKey)), kid: "human-1", alg: "RS256" };
    jwks.human = [rsaPublic];
    jwks.device = [{ ...(await exportJWK(ec.publicKey)), kid: "device-1", alg: "ES256" }];
  });

  const authenticator = () => createAuthenticator(callSubgraph, clock);
  const refused = { code: "unauthorized" };

  it("turns a human token into a user caller", async () => {
    const { caller } = await authenticator().authenticate(`Bearer ${await human({ impersonated_by: "admin-1" })}`);
    expect(caller).toEqual({
      type: "user",
      id: "6f1c2b9e-0000-4000-8000-000000000001",
      role: "STORE_MANAGER",
      pspId: 1,
      merchantId: 2,
      storeId: 3,
      areaId: undefined,
      impersonatedBy: "admin-1",
      scopes: [],
    });
  });

  it("turns a device token into a device caller with its scopes", async () => {
    const token = await new SignJWT({
      ...forTheApi(),
      iss: DEVICE_TOKEN_ISSUER,
      sub: "device-uuid",
      device_sn: "SN1",
      merchant_id: 2,
      store_id: 3,
      scope: ["order:create", "payment:create"],
    })
      .setProtectedHeader({ alg: "ES256", kid: "device-1" })
      .setExpirationTime(seconds() + 90)
      .sign(ec.privateKey);
    const { caller } = await authenticator().authenticate(`Bearer ${token}`);
    expect(caller).toMatchObject({
      type: "device",
      id: "device-uuid",
      merchantId: 2,
      storeId: 3,
      scopes: ["order:create", "payment:create"],
    });
  });

  it("treats no token as anonymous and leaves other schemes to their own checks", async () => {
    expect((await authenticator().authenticate(undefined)).caller.type).toBe("anonymous");
    expect((await authenticator().authenticate("HMAC-SHA256 client:1:abc")).caller.type).toBe("anonymous");
    expect((await authenticator().authenticate("Bearer opaque-payment-token", true)).caller.type).toBe("anonymous");
    await expect(authenticator().authenticate("Bearer opaque-payment-token")).rejects.toMatchObject(refused);
  });

  it("refuses alg none", async () => {
    const token = new UnsecuredJWT({ iss: HUMAN_TOKEN_ISSUER, sub: "x", role: "SYSTEM_OP" })
      .setIssuedAt()
      .setExpirationTime("15m")
      .encode();
    await expect(authenticator().authenticate(`Bearer ${token}`)).rejects.toMatchObject(refused);
  });

  it("refuses a token for another audience, or without an audience or an id", async () => {
    const auth = authenticator();
    for (const claims of [{ aud: "another-api" }, { aud: undefined }, { jti: undefined }]) {
      await expect(auth.authenticate(`Bearer ${await human(claims)}`)).rejects.toMatchObject(refused);
    }
    expect((await auth.authenticate(`Bearer ${await human()}`)).caller.type).toBe("user");
  });

  it("refuses HS256 signed with the public key", async () => {
    const secret = new TextEncoder().encode(JSON.stringify(rsaPublic));
    const token = await new SignJWT({ ...forTheApi(), iss: HUMAN_TOKEN_ISSUER, sub: "x", role: "SYSTEM_OP" })
      .setProtectedHeader({ alg: "HS256", kid: "human-1" })
      .setIssuedAt(seconds())
      .setExpirationTime(seconds() + 900)
      .sign(secret);
    await expect(authenticator().authenticate(`Bearer ${token}`)).rejects.toMatchObject(refused);
  });

  it("refuses an expired token, a wrong issuer, a tampered payload and a device-signed human token", async () => {
    const auth = authenticator();
    const token = await human();
    now = new Date(now.getTime() + 16 * 60_000);
    await expect(auth.authenticate(`Bearer ${token}`)).rejects.toMatchObject({ details: { reason: "expired" } });
    await expect(auth.authenticate(`Bearer ${await human({ iss: DEVICE_TOKEN_ISSUER })}`)).rejects.toMatchObject(
      refused,
    );
    const [header, payload, signature] = (await human()).split(".");
    const raised = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), role: "SYSTEM_OP" }),
    ).toString("base64url");
    await expect(auth.authenticate(`Bearer ${header}.${raised}.${signature}`)).rejects.toMatchObject(refused);
    const deviceAsHuman = await new SignJWT({ ...forTheApi(), iss: HUMAN_TOKEN_ISSUER, sub: "x", role: "SYSTEM_OP" })
      .setProtectedHeader({ alg: "ES256", kid: "device-1" })
      .setIssuedAt(seconds())
      .setExpirationTime(seconds() + 900)
      .sign(ec.privateKey);
    await expect(auth.authenticate(`Bearer ${deviceAsHuman}`)).rejects.toMatchObject(refused);
  });

  it("refuses tokens signed until their subject's revocation, a terminal's and a store person's also by its store", async () => {
    const revoke = (subject: string) => ({
      subject,
      revoked_before: now.toISOString(),
      expires_at: new Date(now.getTime() + 900_000).toISOString(),
    });
    const signedNow = await human();
    const otherUser = await human({ sub: "6f1c2b9e-0000-4000-8000-000000000002", store_id: 4 });
    // Issue 32: the staff of a deactivated store kept working with the tokens they held.
    const staffOfStore = await human({ sub: "6f1c2b9e-0000-4000-8000-000000000003", role: "STAFF" });
    const merchantAdmin = await human({ sub: "6f1c2b9e-0000-4000-8000-000000000004", store_id: null });
    const terminal = await new SignJWT({
      ...forTheApi(),
      iss: DEVICE_TOKEN_ISSUER,
      sub: "device-uuid",
      store_id: 3,
      scope: [],
    })
      .setProtectedHeader({ alg: "ES256", kid: "device-1" })
      .setIssuedAt(seconds())
      .setExpirationTime(seconds() + 90)
      .sign(ec.privateKey);
    revocations = [revoke("user:6f1c2b9e-0000-4000-8000-000000000001"), revoke("store:3")];
    try {
      const auth = authenticator();
      const revoked = { code: "unauthorized", details: { reason: "revoked" } };
      await expect(auth.authenticate(`Bearer ${signedNow}`)).rejects.toMatchObject(revoked);
      const storeClosed = {
        code: "unauthorized",
        message: "the token's store 3 was deactivated",
        details: { reason: "store_inactive", store_id: 3 },
      };
      await expect(auth.authenticate(`Bearer ${terminal}`)).rejects.toMatchObject(storeClosed);
      await expect(auth.authenticate(`Bearer ${staffOfStore}`)).rejects.toMatchObject(storeClosed);
      expect((await auth.authenticate(`Bearer ${otherUser}`)).caller.type).toBe("user");
      expect((await auth.authenticate(`Bearer ${merchantAdmin}`)).caller.type).toBe("user");
      now = new Date(now.getTime() + 1000);
      expect((await auth.authenticate(`Bearer ${await human()}`)).caller.type).toBe("user");
    } finally {
      revocations = [];
    }
  });

  it("refetches the JWKS for an unknown kid, at most every 30 seconds", async () => {
    const auth = authenticator();
    await auth.authenticate(`Bearer ${await human()}`);
    const other = await generateKeyPair("RS256", { extractable: true });
    jwks.human = [rsaPublic, { ...(await exportJWK(other.publicKey)), kid: "human-2", alg: "RS256" }];
    const rotated = await human({}, "human-2", other.privateKey);
    const before = fetches;
    await expect(auth.authenticate(`Bearer ${rotated}`)).rejects.toMatchObject(refused);
    expect(fetches).toBe(before);
    now = new Date(now.getTime() + 31_000);
    expect((await auth.authenticate(`Bearer ${rotated}`)).caller.type).toBe("user");
    expect(fetches).toBe(before + 1);
  });
});
