import { randomUUID } from "node:crypto";
import { checkMasterKey, DEFAULT_API_AUDIENCE, newUlid, type SecretBox } from "@pos-cloud/common";
import { exportJWK, generateKeyPair, importJWK, type JWK, type JWTPayload, SignJWT } from "jose";
import type { Clock } from "../../clock";
import type { SigningKeyRepository, SigningKeyRow } from "./signing-key.repository";

/** Human tokens are RS256, device tokens ES256 (the spec's Authentication summary). */
export const keyAlgorithms = { human: "RS256", device: "ES256" } as const;
export type KeyPurpose = keyof typeof keyAlgorithms;

const DAY_MS = 24 * 60 * 60 * 1000;
/** A key signs for 90 days, then a new one takes over; the old one still verifies for 7 more days. */
export const ROTATION_MS = 90 * DAY_MS;
export const OVERLAP_MS = 7 * DAY_MS;

export type SigningKeyService = ReturnType<typeof signingKeyService>;

export function signingKeyService(
  keys: SigningKeyRepository,
  box: SecretBox,
  clock: Clock = () => new Date(),
  audience = DEFAULT_API_AUDIENCE,
) {
  const privateKeys = new Map<string, Awaited<ReturnType<typeof importJWK>>>();

  async function create(purpose: KeyPurpose, now: Date): Promise<SigningKeyRow> {
    const alg = keyAlgorithms[purpose];
    const pair = await generateKeyPair(alg, { extractable: true });
    const kid = `${purpose}-${newUlid(now.getTime())}`;
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg, use: "sig" };
    const row = {
      kid,
      purpose,
      alg,
      public_jwk: publicJwk,
      private_jwk: box.seal(JSON.stringify(await exportJWK(pair.privateKey))),
      created_at: now,
    };
    await keys.replaceSigning(row, now);
    privateKeys.set(kid, pair.privateKey);
    return { ...row, retired_at: null };
  }

  /** The key that signs now, rotating it when it is 90 days old (or creating the first). */
  async function signingKey(purpose: KeyPurpose): Promise<SigningKeyRow> {
    const now = clock();
    const current = (await keys.listVerifying(purpose, now)).find((key) => key.retired_at === null);
    if (current && now.getTime() - current.created_at.getTime() < ROTATION_MS) return current;
    return create(purpose, now);
  }

  async function privateKeyOf(key: SigningKeyRow) {
    let privateKey = privateKeys.get(key.kid);
    if (!privateKey) {
      privateKey = await importJWK(JSON.parse(box.open(key.private_jwk)) as JWK, key.alg);
      privateKeys.set(key.kid, privateKey);
    }
    return privateKey;
  }

  return {
    /** Stops with `MasterKeyMismatchError` when the master key does not open the stored keys (checked on open). */
    async verifyMasterKey(): Promise<void> {
      checkMasterKey(box, "portal", (await keys.newestSealed())?.private_jwk);
    },

    /**
     * Signs claims with the purpose's current key (`kid` in the header names it), for the platform's API (`aud`)
     * and with an id of its own (`jti`), so a resource server can check whom a token is for and tell tokens apart.
     */
    async sign(purpose: KeyPurpose, claims: JWTPayload, lifetimeSeconds: number): Promise<string> {
      const key = await signingKey(purpose);
      const issuedAt = Math.floor(clock().getTime() / 1000);
      return new SignJWT({ aud: audience, jti: randomUUID(), ...claims })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT" })
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + lifetimeSeconds)
        .sign(await privateKeyOf(key));
    },

    /** The public keys that verify tokens of a purpose now: the signing key and keys retired less than 7 days ago. */
    async jwks(purpose: KeyPurpose): Promise<{ keys: JWK[] }> {
      await signingKey(purpose);
      const since = new Date(clock().getTime() - OVERLAP_MS);
      return { keys: (await keys.listVerifying(purpose, since)).map((key) => key.public_jwk as JWK) };
    },

    /** Rotates every purpose's key that is 90 days old (the hourly check); returns the key ids now signing. */
    async rotateDue(): Promise<Record<KeyPurpose, string>> {
      return { human: (await signingKey("human")).kid, device: (await signingKey("device")).kid };
    },

    /** Replaces the signing key now, whatever its age (the rotation command). Returns the new key id. */
    async rotate(purpose: KeyPurpose): Promise<string> {
      return (await create(purpose, clock())).kid;
    },
  };
}
