import { createHash, createHmac } from "node:crypto";

/** The spec's HMAC scheme 1: hex HMAC-SHA256 over METHOD\nPATH\nTIMESTAMP\nhex(SHA-256(body)), key hex(SHA-256(secret)). */
export function signScheme1(secret: string, method: string, path: string, timestamp: number, body: string) {
  const key = createHash("sha256").update(secret).digest("hex");
  const bodyHash = createHash("sha256").update(body).digest("hex");
  return createHmac("sha256", key).update(`${method}\n${path}\n${timestamp}\n${bodyHash}`).digest("hex");
}
