import { createHash, createHmac } from "node:crypto";
import type { ProviderCredentials } from "../provider.contract";

/** One signed request's variable parts: a fresh nonce and the epoch second it was signed at. */
export interface OpaStamp {
  nonce: string;
  epoch: number;
}

/**
 * PayPay's `Authorization: hmac OPA-Auth:<api key>:<mac>:<nonce>:<epoch>:<body hash>` (Open Payment API reference,
 * "API Authentication"). The body hash is the base64 MD5 of the content type and the JSON body together, `empty` for
 * a call without a body (GET, DELETE); the MAC is the base64 HMAC-SHA256 under the API secret of the path without its
 * query, the method, the nonce, the epoch, the content type and the body hash, joined by newlines.
 */
export function opaAuthorization(
  credentials: Pick<ProviderCredentials, "api_key" | "api_secret">,
  request: { method: string; path: string; body: string },
  stamp: OpaStamp,
): string {
  const contentType = request.body === "" ? "empty" : "application/json";
  const bodyHash =
    request.body === "" ? "empty" : createHash("md5").update(`${contentType}${request.body}`).digest("base64");
  const canonical = [request.path.split("?")[0], request.method, stamp.nonce, stamp.epoch, contentType, bodyHash];
  const mac = createHmac("sha256", credentials.api_secret).update(canonical.join("\n")).digest("base64");
  return `hmac OPA-Auth:${[credentials.api_key, mac, stamp.nonce, stamp.epoch, bodyHash].join(":")}`;
}
