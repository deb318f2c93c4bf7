import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { sandboxErrors } from "./errors";

/** One merchant's account at the sandbox: the spec's credentials object, and how it learns of outcomes. */
export interface MerchantAccount {
  merchant_id: string;
  api_key: string;
  api_secret: string;
  /** `polling`: the account never receives notifications; the merchant asks for the status. */
  delivery: "webhook" | "polling";
}

export const TIMESTAMP_WINDOW_SECONDS = 300;

/** What the merchant signs: the timestamp, the method, the path with its query, and the raw body. */
export function requestSignature(apiSecret: string, timestamp: string, method: string, path: string, body: string) {
  return createHmac("sha256", apiSecret).update(`${timestamp}\n${method}\n${path}\n${body}`).digest("hex");
}

/** The headers a merchant sends with every API call; the gateway's adapter builds the same ones. */
export function signedHeaders(
  account: Omit<MerchantAccount, "delivery">,
  method: string,
  path: string,
  body: string,
  nowMs = Date.now(),
) {
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    authorization: `Bearer ${account.api_key}`,
    "x-sandbox-merchant-id": account.merchant_id,
    "x-sandbox-timestamp": timestamp,
    "x-sandbox-request-signature": requestSignature(account.api_secret, timestamp, method, path, body),
  };
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Any mismatch is the same 401, so a caller learns nothing about which part was wrong. */
export function authenticate(
  accounts: readonly MerchantAccount[],
  headers: IncomingHttpHeaders,
  request: { method: string; path: string; body: string; nowMs: number },
): MerchantAccount {
  const denied = sandboxErrors.unauthorized("invalid credentials or request signature");
  const apiKey = /^Bearer (.+)$/.exec(single(headers.authorization) ?? "")?.[1];
  const account = accounts.find((candidate) => candidate.api_key === apiKey);
  const timestamp = single(headers["x-sandbox-timestamp"]) ?? "";
  const signature = single(headers["x-sandbox-request-signature"]) ?? "";
  if (!account || single(headers["x-sandbox-merchant-id"]) !== account.merchant_id) throw denied;
  if (!/^\d+$/.test(timestamp) || Math.abs(request.nowMs / 1000 - Number(timestamp)) > TIMESTAMP_WINDOW_SECONDS)
    throw denied;
  const expected = Buffer.from(
    requestSignature(account.api_secret, timestamp, request.method, request.path, request.body),
  );
  const given = Buffer.from(signature.toLowerCase());
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw denied;
  return account;
}
