import { base64url, base64urlJson, utf8 } from "./encoding";

const ecdsa = { name: "ECDSA", namedCurve: "P-256" } as const;

/** A WebCrypto key, named by what `crypto.subtle` answers, in a browser's types as in Node's. */
export type WebCryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

export interface DeviceKeyPair {
  publicKey: WebCryptoKey;
  privateKey: WebCryptoKey;
}

/** A private EC JWK, as demo.json's `private_jwk` holds one. */
export interface PrivateJwk {
  kty?: string;
  crv?: string;
  x?: string;
  y?: string;
  d?: string;
}

/** A device's P-256 signing key: a WebCrypto key (kept non-extractable where the platform allows) or a private JWK. */
export type DeviceKey = WebCryptoKey | PrivateJwk;

/** The key as WebCrypto signs with it; a JWK is imported once, non-extractable. */
export function signingKey(key: DeviceKey): Promise<WebCryptoKey> {
  if (!("kty" in key)) return Promise.resolve(key as WebCryptoKey);
  return crypto.subtle.importKey("jwk", key, ecdsa, false, ["sign"]);
}

/** A fresh P-256 key pair for a terminal that is being provisioned; only the public half leaves the device. */
export async function generateDeviceKeyPair(extractable = false): Promise<DeviceKeyPair> {
  return (await crypto.subtle.generateKey(ecdsa, extractable, ["sign", "verify"])) as DeviceKeyPair;
}

/** The public half as the provisioning routes take it: kty, crv, x, y and nothing private. */
export async function publicJwk(publicKey: WebCryptoKey): Promise<{ kty: string; crv: string; x: string; y: string }> {
  const { kty, crv, x, y } = await crypto.subtle.exportKey("jwk", publicKey);
  if (!kty || !crv || !x || !y) throw new Error("the public key is not an EC P-256 key");
  return { kty, crv, x, y };
}

/**
 * A client assertion (RFC 7523) as the spec's device token wants it: ES256, iss = sub = client_id, aud the token
 * endpoint, 60 seconds from `nowMs`, a fresh jti. WebCrypto's ECDSA signature is already JWS's r || s.
 */
export async function clientAssertion(
  key: WebCryptoKey,
  clientId: string,
  audience: string,
  nowMs: number,
): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  const claims = { iss: clientId, sub: clientId, aud: audience, iat, exp: iat + 60, jti: crypto.randomUUID() };
  const input = `${base64urlJson({ alg: "ES256" })}.${base64urlJson(claims)}`;
  const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, utf8(input));
  return `${input}.${base64url(new Uint8Array(signature))}`;
}
