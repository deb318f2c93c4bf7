import { createHmac, timingSafeEqual } from "node:crypto";

/** `sandbox` → `x-sandbox-signature`, `sandbox-poll` → `x-sandbox-poll-signature` (Node lowercases header names). */
export function webhookSignatureHeader(providerCode: string): string {
  return `x-${providerCode.toLowerCase().replace(/_/g, "-")}-signature`;
}

/**
 * Checks `X-<Provider>-Signature`: the hex HMAC-SHA256 of the raw body (the bytes as received, before any parsing)
 * under the provider's webhook secret, compared in constant time.
 */
export function verifyWebhookSignature(
  rawBody: Buffer | string,
  signature: string | string[] | undefined,
  webhookSecret: string,
): boolean {
  if (typeof signature !== "string" || !/^[0-9a-f]{64}$/i.test(signature.trim())) return false;
  const expected = createHmac("sha256", webhookSecret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(signature.trim(), "hex"), expected);
}
