import { signScheme1 } from "@pos-cloud/common";

export interface GatewaySyncConfig {
  /** The payment gateway's base URL ({base_url}). */
  url: string;
  /** The portal's own client partner credentials at the gateway. */
  clientId: string;
  secret: string;
  clientPartnerId: number;
}

export const SYNC_PATH = "/v1/sync/merchants";

/** The gateway answered with an error: its status and, when it sent one, its `{code, message, details}`. */
export class GatewayAnswerError extends Error {
  constructor(
    readonly status: number,
    readonly answer: { code?: string; message?: string; details?: unknown },
  ) {
    super(`the gateway answered ${status}${answer.code ? ` ${answer.code}: ${answer.message}` : ""}`);
    this.name = "GatewayAnswerError";
  }

  /**
   * The gateway refused this payload (ownership, validation): sending it again gets the same answer. Authentication,
   * rate limits and the gateway's own failures may pass on a later attempt.
   */
  get refused(): boolean {
    return this.status >= 400 && this.status < 500 && ![401, 408, 429].includes(this.status);
  }
}

/**
 * The last sync signed. The gateway accepts a signature once, and the same payload may go out twice within a second
 * (a change and a full sync): the second copy is signed a second later (a timestamp up to 5 minutes ahead is valid).
 */
let lastSigned = { body: "", timestamp: 0 };

/** Posts one signed sync request; any answer but 2xx is an error, so the caller retries. */
export async function postSync(config: GatewaySyncConfig, payload: unknown, now = Date.now()) {
  const body = JSON.stringify(payload);
  let timestamp = Math.floor(now / 1000);
  if (body === lastSigned.body && timestamp <= lastSigned.timestamp) timestamp = lastSigned.timestamp + 1;
  lastSigned = { body, timestamp };
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
  if (!response.ok) {
    const answer = (await response.json().catch(() => ({}))) as GatewayAnswerError["answer"];
    throw new GatewayAnswerError(response.status, answer ?? {});
  }
  return (await response.json()) as { synced_merchants?: number; synced_stores?: number };
}
