import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { MerchantAccount } from "./auth";

/**
 * PayPay's `hmac OPA-Auth` request signing, as its API reference and official SDKs define it: the MAC is the base64
 * HMAC-SHA256, under the API secret, of the path (without its query), the method, a nonce, the epoch seconds, the
 * content type and the body's hash, one per line; the body's hash is the base64 MD5 of the content type followed by
 * the body, and both are `empty` when there is no body. The header is
 * `hmac OPA-Auth:<api key>:<mac>:<nonce>:<epoch>:<hash>`.
 */
export interface OpaSignature {
  apiKey: string;
  mac: string;
  nonce: string;
  epoch: string;
  hash: string;
}

export function opaBodyHash(contentType: string, body: string) {
  return body === "" ? "empty" : createHash("md5").update(contentType).update(body).digest("base64");
}

export function opaMac(
  apiSecret: string,
  request: { path: string; method: string; nonce: string; epoch: string; contentType: string; hash: string },
) {
  const contentType = request.hash === "empty" ? "empty" : request.contentType;
  const lines = [request.path, request.method, request.nonce, request.epoch, contentType, request.hash];
  return createHmac("sha256", apiSecret).update(lines.join("\n")).digest("base64");
}

export function parseOpaHeader(header: string | undefined): OpaSignature | undefined {
  const match = /^hmac OPA-Auth:([^:]+):([^:]+):([^:]+):(\d+):([^:]+)$/.exec(header ?? "");
  if (!match) return undefined;
  const [, apiKey, mac, nonce, epoch, hash] = match as unknown as [string, string, string, string, string, string];
  return { apiKey, mac, nonce, epoch, hash };
}

/** How far a request's epoch may be from the sandbox's clock, either way. */
export const OPA_EPOCH_WINDOW_SECONDS = 120;

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export type OpaRefusal = "UNAUTHORIZED" | "OP_OUT_OF_SCOPE";

/**
 * The account a request is signed for, or why not: `UNAUTHORIZED` for an unknown key, a bad MAC, a body that is not
 * the one hashed or an epoch out of the window; `OP_OUT_OF_SCOPE` for an `X-ASSUME-MERCHANT` the key may not act for.
 */
export function verifyOpaRequest(
  accounts: readonly MerchantAccount[],
  headers: IncomingHttpHeaders,
  request: { method: string; path: string; body: string; nowMs: number },
): MerchantAccount | OpaRefusal {
  const signature = parseOpaHeader(single(headers.authorization));
  const account = accounts.find((candidate) => candidate.api_key === signature?.apiKey);
  if (!signature || !account) return "UNAUTHORIZED";
  if (Math.abs(request.nowMs / 1000 - Number(signature.epoch)) > OPA_EPOCH_WINDOW_SECONDS) return "UNAUTHORIZED";
  const contentType = single(headers["content-type"]) ?? "";
  if (signature.hash !== opaBodyHash(contentType, request.body)) return "UNAUTHORIZED";
  const path = request.path.split("?")[0]!;
  const expected = Buffer.from(opaMac(account.api_secret, { ...signature, path, method: request.method, contentType }));
  const given = Buffer.from(signature.mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "UNAUTHORIZED";
  const assumed = single(headers["x-assume-merchant"]);
  if (assumed !== undefined && assumed !== account.merchant_id) return "OP_OUT_OF_SCOPE";
  return account;
}
