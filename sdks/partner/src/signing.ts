import { createHash, createHmac } from "node:crypto";

/** What a signature covers: the method, the path with its query string exactly as sent, and the raw body. */
export interface SignedParts {
  method: string;
  target: string;
  body: Uint8Array;
}

/** Scheme 1 (the spec's preferred): hex HMAC over METHOD\nPATH\nTIMESTAMP\nhex(SHA-256(body)), keyed by hex(SHA-256(secret)). */
function signatureV1(secret: string, { method, target, body }: SignedParts, timestamp: string): string {
  const key = createHash("sha256").update(secret).digest("hex");
  const bodyHash = createHash("sha256").update(body).digest("hex");
  return createHmac("sha256", key).update(`${method}\n${target}\n${timestamp}\n${bodyHash}`).digest("hex");
}

/** Scheme 2: Base64 HMAC over METHOD:PATH:TIMESTAMP:body, keyed by the secret itself. */
function signatureV2(secret: string, { method, target, body }: SignedParts, timestamp: string): string {
  return createHmac("sha256", secret).update(`${method}:${target}:${timestamp}:`).update(body).digest("base64");
}

/** `HMAC-SHA256 <client_id>:<timestamp>:<signature>` for a request, at `now` (milliseconds). */
export function authorization(
  credentials: { clientId: string; secret: string; scheme?: 1 | 2 },
  parts: SignedParts,
  now: number,
): string {
  const timestamp = String(Math.floor(now / 1000));
  const sign = credentials.scheme === 2 ? signatureV2 : signatureV1;
  return `HMAC-SHA256 ${credentials.clientId}:${timestamp}:${sign(credentials.secret, parts, timestamp)}`;
}
