import { clientAssertion, type WebCryptoKey } from "./assertion";
import { decodeBase64urlJson } from "./encoding";
import { TerminalApiError } from "./errors";

export const TOKEN_PATH = "/api/v1/auth/device/token";
const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/** The share of a token's life after which it is renewed, as the spec's "the SDK refreshes at about 75 %" says. */
export const REFRESH_AT = 0.75;

export interface TokenSourceOptions {
  baseUrl: string;
  clientId: string;
  key: Promise<WebCryptoKey>;
  fetch: typeof fetch;
  /** Milliseconds since the epoch; the assertion's iat and the refresh moment are read from it. */
  now: () => number;
  /** The client assertion's audience: the token endpoint's URL at `baseUrl` unless given. */
  audience?: string;
}

interface Held {
  token: string;
  /** The device id (the token's sub). */
  deviceId: string;
  /** The store the device is bound to. */
  storeId: number;
  refreshAt: number;
  expiresAt: number;
}

/**
 * The device token: fetched with a fresh client assertion, renewed once 75 % of its life has passed, never by two
 * requests at once. A renewal that fails while the held token still lives leaves it in use.
 */
export function tokenSource({ baseUrl, clientId, key, fetch, now, audience }: TokenSourceOptions) {
  let held: Held | undefined;
  let renewal: Promise<Held> | undefined;

  async function issue(): Promise<Held> {
    const issuedAt = now();
    const response = await fetch(`${baseUrl}${TOKEN_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_assertion_type: JWT_BEARER,
        client_assertion: await clientAssertion(await key, clientId, audience ?? `${baseUrl}${TOKEN_PATH}`, issuedAt),
      }),
    });
    if (response.status !== 200) throw await TerminalApiError.from(response);
    const { access_token, expires_in } = (await response.json()) as { access_token: string; expires_in: number };
    const claims = decodeBase64urlJson(access_token.split(".")[1] ?? "") as { sub: string; store_id: number };
    const life = expires_in * 1000;
    return {
      token: access_token,
      deviceId: claims.sub,
      storeId: claims.store_id,
      refreshAt: issuedAt + life * REFRESH_AT,
      expiresAt: issuedAt + life,
    };
  }

  function renew(): Promise<Held> {
    renewal ??= issue()
      .then((fresh) => {
        held = fresh;
        return fresh;
      })
      .finally(() => {
        renewal = undefined;
      });
    return renewal;
  }

  async function current(): Promise<Held> {
    if (held && now() < held.refreshAt) return held;
    try {
      return await renew();
    } catch (error) {
      if (held && now() < held.expiresAt) return held;
      throw error;
    }
  }

  return {
    /** A token valid now, renewed first when 75 % of its life has passed. */
    token: async () => (await current()).token,
    /** The device's id and store, as its token names them. */
    identity: async () => {
      const { deviceId, storeId } = await current();
      return { deviceId, storeId };
    },
    /** Drops `token` after the platform refused it (401): the next call signs a new assertion. */
    refused(token: string) {
      if (held?.token === token) held = undefined;
    },
  };
}

export type TokenSource = ReturnType<typeof tokenSource>;
