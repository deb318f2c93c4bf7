import { randomUUID } from "node:crypto";
import { importJWK, type JWK, SignJWT } from "jose";

export const TOKEN_PATH = "/api/v1/auth/device/token";
export const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** A client assertion as a terminal signs it: ES256, iss = sub = client_id, 60 s, a fresh jti. */
export async function clientAssertion(
  privateJwk: JWK,
  clientId: string,
  audience: string,
  overrides: { iat?: number; exp?: number; jti?: string } = {},
) {
  const iat = overrides.iat ?? Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "ES256" })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(audience)
    .setIssuedAt(iat)
    .setExpirationTime(overrides.exp ?? iat + 60)
    .setJti(overrides.jti ?? randomUUID())
    .sign(await importJWK(privateJwk, "ES256"));
}

export function tokenRequest(baseUrl: string, assertion: string) {
  return fetch(`${baseUrl}${TOKEN_PATH}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_assertion_type: JWT_BEARER,
      client_assertion: assertion,
    }),
  });
}

/**
 * A device access token for a provisioned device, obtained through the token endpoint; `now` is the platform's time
 * where a test moves its clock (the assertion is signed at it).
 */
export async function deviceToken(baseUrl: string, device: { client_id: string; private_jwk: JWK }, now?: Date) {
  const iat = now ? Math.floor(now.getTime() / 1000) : undefined;
  const assertion = await clientAssertion(device.private_jwk, device.client_id, `${baseUrl}${TOKEN_PATH}`, { iat });
  const response = await tokenRequest(baseUrl, assertion);
  if (response.status !== 200) throw new Error(`token endpoint: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * A human access token signed with the platform's own human key, with the claims a login issues. Until the login
 * flow is in this branch, tests get their human callers this way; the edge verifies them like any token.
 */
export function humanToken(
  portal: { signingKeys: { sign(purpose: "human", claims: object, lifetime: number): Promise<string> } },
  claims: { role: string; psp_id?: number; merchant_id?: number; store_id?: number; area_id?: string; aud?: string },
) {
  return portal.signingKeys.sign("human", { iss: "pos-cloud-human", sub: randomUUID(), ...claims }, 900);
}

/** A store manager's (L4) access token for a seeded store, as `humanToken` makes it. */
export const storeManagerToken = (
  portal: Parameters<typeof humanToken>[0],
  store: { id: number; psp_id: number; merchant_id: number },
) =>
  humanToken(portal, {
    role: "STORE_MANAGER",
    psp_id: store.psp_id,
    merchant_id: store.merchant_id,
    store_id: store.id,
  });
