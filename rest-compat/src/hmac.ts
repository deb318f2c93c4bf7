import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { AppError } from "@pos-cloud/common";
import { cachedLookup } from "./lookup-cache";

/** One secret of a client_id: its key, when it expires, whether it is revoked and what it is restricted to. */
export interface PartnerKey {
  id: string;
  secret: string;
  expires_at: Date | string;
  revoked: boolean;
  /** The operations it may call; empty: every partner operation. */
  permissions: string[];
  /** The stores it may name; empty: every store of its partner. */
  store_ids: number[];
}

/** The recent secrets of a client_id and the partner they belong to; null when the client_id is unknown. */
export type PartnerSecrets = { client_partner_id: number; keys: PartnerKey[] } | null;

export interface SignedRequest {
  method: string;
  /** The request path with its query string, exactly as sent. */
  target: string;
  rawBody: Buffer;
  authorization: string | undefined;
}

/** A verified signature: who signed, and what the replay check needs to accept the signature once. */
export interface VerifiedSignature {
  client_partner_id: number;
  /** The key whose secret signed. */
  api_key_id: string;
  /** What the key is restricted to (empty: nothing), for the subgraph to enforce. */
  permissions: string[];
  store_ids: number[];
  /** Names the signature for the replay check: SHA-256 (hex) of the client_id, timestamp and signature. */
  fingerprint: string;
  /** Seconds until the timestamp leaves the window (at least 1): as long as a replay must be refused. */
  ttl_seconds: number;
}

export const HMAC_WINDOW_SECONDS = 300;
/**
 * How long a client_id's secrets are kept. A revocation makes the edge forget them at once (`forgetSecrets`, on the
 * bus's `api_keys.revoked`); this bounds how long a revocation whose event an edge missed still lets a key sign.
 */
export const SECRETS_CACHE_MS = 30_000;
/** A key's use is reported at most this often per key: `last_used_at` needs minutes, not a write per request. */
const USE_REPORT_MS = 60_000;

const header = /^HMAC-SHA256 ([^:\s]+):(\d{1,12}):(\S+)$/;

/** The client_id a signed request names; only meaningful once the signature is verified. */
export function signingClientId(authorization: string | undefined): string {
  const clientId = header.exec(authorization ?? "")?.[1];
  if (!clientId) throw unauthorized();
  return clientId;
}

/** Every failure looks the same, so a caller learns nothing about which part was wrong. */
const unauthorized = () => new AppError("unauthorized", "the request signature is missing or invalid");

/** The spec's preferred scheme: hex HMAC over METHOD\nPATH\nTIMESTAMP\nhex(SHA-256(body)), keyed by hex(SHA-256(secret)). */
export function signatureV1(secret: string, method: string, target: string, timestamp: string, body: Buffer): string {
  const key = createHash("sha256").update(secret).digest("hex");
  const bodyHash = createHash("sha256").update(body).digest("hex");
  return createHmac("sha256", key).update(`${method}\n${target}\n${timestamp}\n${bodyHash}`).digest("hex");
}

/** The architecture description's scheme: Base64 HMAC over METHOD:PATH:TIMESTAMP:body, keyed by the secret. */
export function signatureV2(secret: string, method: string, target: string, timestamp: string, body: Buffer): string {
  return createHmac("sha256", secret)
    .update(Buffer.concat([Buffer.from(`${method}:${target}:${timestamp}:`), body]))
    .digest("base64");
}

function same(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A retired secret still signing. Told apart from a wrong signature, since only its holder can make one: the partner
 * learns to rotate rather than to debug its signing code.
 */
function retired(key: PartnerKey, at: number): AppError | undefined {
  if (key.revoked) return new AppError("api_key_revoked", "this API key is revoked; sign with an active key");
  if (new Date(key.expires_at).getTime() <= at) {
    return new AppError("api_key_expired", "this API key expired; sign with its successor (rotate before expiry)");
  }
  return undefined;
}

/**
 * Verifies `Authorization: HMAC-SHA256 <client_id>:<timestamp>:<signature>` under either scheme and any recent
 * secret of the client_id (two usable during a rotation); a revoked or expired one is refused with its own code.
 * Secrets are cached briefly so a burst of signed calls asks the payments subgraph once; a revocation empties the
 * cache (`forgetSecrets`). `now` is the time request timestamps are checked against, `clock` the platform's time
 * that keys expire by (the same unless a test moves the platform's clock).
 */
export function createHmacVerifier(options: {
  fetchSecrets: (clientId: string) => Promise<PartnerSecrets>;
  /** Notes that a key signed a verified request; called at most once a minute per key, failures ignored. */
  reportUse?: (apiKeyId: string) => Promise<unknown>;
  now?: () => number;
  clock?: () => number;
}) {
  const now = options.now ?? Date.now;
  const clock = options.clock ?? now;
  const secretsOf = cachedLookup(options.fetchSecrets, {
    ttlMs: SECRETS_CACHE_MS,
    keyOf: (clientId) => clientId,
    now: clock,
  });
  const reported = new Map<string, number>();
  const reportUse = (id: string) => {
    const at = clock();
    if (!options.reportUse || (reported.get(id) ?? Number.NEGATIVE_INFINITY) > at - USE_REPORT_MS) return;
    if (reported.size > 10_000) reported.clear();
    reported.set(id, at);
    options.reportUse(id).catch(() => reported.delete(id));
  };

  return {
    /** The client partner that signed the request, with the signature's replay identity; `unauthorized` otherwise. */
    async verify(request: SignedRequest): Promise<VerifiedSignature> {
      const parts = header.exec(request.authorization ?? "");
      if (!parts) throw unauthorized();
      const [, clientId, timestamp, signature] = parts as unknown as [string, string, string, string];
      const age = now() / 1000 - Number(timestamp);
      if (Math.abs(age) > HMAC_WINDOW_SECONDS) throw unauthorized();
      const { method, target, rawBody } = request;
      const signedBy = (found: PartnerSecrets) =>
        found?.keys.find(
          ({ secret }) =>
            same(signature, signatureV1(secret, method, target, timestamp, rawBody)) ||
            same(signature, signatureV2(secret, method, target, timestamp, rawBody)),
        );
      let found = await secretsOf(clientId);
      let key = signedBy(found);
      // A secret issued since the cache was filled (a rotation) must work at once: a miss asks the subgraph again.
      if (!key && found) {
        found = await options.fetchSecrets(clientId);
        key = signedBy(found);
      }
      if (!key || !found) throw unauthorized();
      const refusal = retired(key, clock());
      if (refusal) throw refusal;
      reportUse(key.id);
      return {
        client_partner_id: found.client_partner_id,
        api_key_id: key.id,
        permissions: key.permissions,
        store_ids: key.store_ids,
        fingerprint: createHash("sha256").update(`${clientId}:${timestamp}:${signature}`).digest("hex"),
        ttl_seconds: Math.max(1, Math.ceil(HMAC_WINDOW_SECONDS - age)),
      };
    },
    /** Forgets every client_id's secrets (a key was revoked): the next signature of each is checked against fresh ones. */
    forgetSecrets: () => secretsOf.clear(),
  };
}

export type HmacVerifier = ReturnType<typeof createHmacVerifier>;
