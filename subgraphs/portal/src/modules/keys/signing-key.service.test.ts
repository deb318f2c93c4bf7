import { randomBytes } from "node:crypto";
import { isolatedStorage } from "@pos-cloud/test-support/databases";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PortalDeps } from "../../context";
import { openPortal } from "../../index";
import { OVERLAP_MS, ROTATION_MS } from "./signing-key.service";

describe("signing keys", () => {
  let now = new Date("2026-01-01T00:00:00Z");
  let portal: PortalDeps;
  let storage: Awaited<ReturnType<typeof isolatedStorage>>;

  // The clock moves in these tests, so they get storage no other test's keys live in.
  beforeAll(async () => {
    storage = await isolatedStorage(["portal"]);
    portal = await openPortal({ url: storage.urls.portal, masterKey: randomBytes(32), clock: () => now });
  });
  afterAll(async () => {
    await portal?.close();
    await storage?.drop();
  });

  const verify = async (token: string, purpose: "human" | "device") =>
    jwtVerify(token, createLocalJWKSet(await portal.signingKeys.jwks(purpose)), { currentDate: now });

  it("signs human tokens RS256 and device tokens ES256, each verifiable with its JWKS and naming its kid", async () => {
    const human = await portal.signingKeys.sign("human", { sub: "user-1" }, 900);
    const device = await portal.signingKeys.sign("device", { sub: "device-1" }, 90);
    expect(decodeProtectedHeader(human)).toMatchObject({ alg: "RS256", kid: expect.stringMatching(/^human-/) });
    expect(decodeProtectedHeader(device)).toMatchObject({ alg: "ES256", kid: expect.stringMatching(/^device-/) });
    expect((await verify(human, "human")).payload.sub).toBe("user-1");
    expect((await verify(device, "device")).payload.sub).toBe("device-1");
    await expect(verify(human, "device")).rejects.toThrow();
  });

  it("never serves private key material", async () => {
    const { keys } = await portal.signingKeys.jwks("human");
    for (const key of keys) expect(Object.keys(key)).not.toContain("d");
  });

  it("rotates after 90 days and keeps verifying the old key's tokens for 7 days, not longer", async () => {
    const before = await portal.signingKeys.sign("human", { sub: "old" }, 900);
    const oldKid = decodeProtectedHeader(before).kid;

    now = new Date(now.getTime() + ROTATION_MS + 1000);
    const after = await portal.signingKeys.sign("human", { sub: "new" }, 900);
    expect(decodeProtectedHeader(after).kid).not.toBe(oldKid);
    const inOverlap = (await portal.signingKeys.jwks("human")).keys.map((key) => key.kid);
    expect(inOverlap).toContain(oldKid);

    now = new Date(now.getTime() + OVERLAP_MS + 1000);
    const afterOverlap = (await portal.signingKeys.jwks("human")).keys.map((key) => key.kid);
    expect(afterOverlap).not.toContain(oldKid);
    expect(afterOverlap).toContain(decodeProtectedHeader(after).kid);
  });

  it("rotates on demand", async () => {
    const kid = await portal.signingKeys.rotate("device");
    const token = await portal.signingKeys.sign("device", { sub: "d" }, 90);
    expect(decodeProtectedHeader(token).kid).toBe(kid);
  });

  it("rotates only overdue keys in the periodic check", async () => {
    const current = await portal.signingKeys.rotateDue();
    expect(await portal.signingKeys.rotateDue()).toEqual(current);
    now = new Date(now.getTime() + ROTATION_MS + 1000);
    const next = await portal.signingKeys.rotateDue();
    expect(next.human).not.toBe(current.human);
    expect(next.device).not.toBe(current.device);
  });
});
