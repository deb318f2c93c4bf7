import { createHash, createHmac } from "node:crypto";

export interface GatewaySyncConfig {
  /** The payment gateway's base URL ({base_url}). */
  url: string;
  /** The portal's own client partner credentials at the gateway. */
  clientId: string;
  secret: string;
  clientPartnerId: number;
}

/** The spec's HMAC scheme 1: hex HMAC-SHA256 over METHOD\nPATH\nTIMESTAMP\nhex(SHA-256(body)), key hex(SHA-256(secret)). */
export function signScheme1(secret: string, method: string, path: string, timestamp: number, body: string) {
  const key = createHash("sha256").update(secret).digest("hex");
  const bodyHash = createHash("sha256").update(body).digest("hex");
  return createHmac("sha256", key).update(`${method}\n${path}\n${timestamp}\n${bodyHash}`).digest("hex");
}

export const SYNC_PATH = "/v1/sync/merchants";

/** Posts one signed sync request; any answer but 2xx is an error, so the caller retries. */
export async function postSync(config: GatewaySyncConfig, payload: unknown, now = Date.now()) {
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(now / 1000);
  const signature = signScheme1(config.secret, "POST", SYNC_PATH, timestamp, body);
  const response = await fetch(`${config.url.replace(/\/$/, "")}${SYNC_PATH}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `HMAC-SHA256 ${config.clientId}:${timestamp}:${signature}`,
    },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`the gateway answered ${response.status}`);
  return (await response.json()) as { synced_merchants?: number; synced_stores?: number };
}
