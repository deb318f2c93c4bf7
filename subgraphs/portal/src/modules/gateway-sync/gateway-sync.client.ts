import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { requireNoTransaction, signScheme1 } from "@pos-cloud/common";

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
   * rate limits, the gateway's own failures and a same sync still running elsewhere may pass on a later attempt.
   */
  get refused(): boolean {
    if (this.stillRunningElsewhere) return false;
    return this.status >= 400 && this.status < 500 && ![401, 408, 429].includes(this.status);
  }

  /** The gateway is still running the same sync, sent by another process: its answer is stored when it ends. */
  get stillRunningElsewhere(): boolean {
    return this.status === 409 && this.answer.code === "idempotency_conflict";
  }
}

/**
 * While the first of two identical syncs runs, the second hears 409 `idempotency_conflict`; it asks again this often,
 * with the same bytes, until the first's answer is stored (a sync takes well under the client's 10 s).
 */
const IN_PROGRESS_RETRY_MS = 100;
const IN_PROGRESS_ATTEMPTS = 50;

/**
 * The sync's Idempotency-Key: a hash of what the signature covers (the second and the body) and of `version`, the
 * time of the newest change to the configuration sent. Two processes that push the same configuration in the same
 * second send the same bytes, so the same signature, which the gateway takes once; under one key the second gets the
 * first's stored answer. Any other sync differs in one of the three and runs: a full sync that renews the stores'
 * lease (a later second), a change (another body), or a change undone within the second (another version), whose
 * push must not be answered from the store of the push before the change.
 */
export function syncIdempotencyKey(timestamp: number, version: string, body: string): string {
  return `portal-sync-${createHash("sha256").update(`${timestamp}\n${version}\n${body}`).digest("hex")}`;
}

async function send(config: GatewaySyncConfig, body: string, timestamp: number, key: string) {
  requireNoTransaction("gateway sync");
  const signature = signScheme1(config.secret, "POST", SYNC_PATH, timestamp, body);
  const response = await fetch(`${config.url.replace(/\/$/, "")}${SYNC_PATH}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `HMAC-SHA256 ${config.clientId}:${timestamp}:${signature}`,
      "idempotency-key": key,
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

/**
 * Posts one signed sync request with its Idempotency-Key; any answer but 2xx is an error, so the caller retries.
 * `version` names the configuration's newest change (see `syncIdempotencyKey`).
 */
export async function postSync(
  config: GatewaySyncConfig,
  payload: unknown,
  options: { version: string; now?: number },
) {
  const body = JSON.stringify(payload);
  const timestamp = Math.floor((options.now ?? Date.now()) / 1000);
  const key = syncIdempotencyKey(timestamp, options.version, body);
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(config, body, timestamp, key);
    } catch (error) {
      const retry = error instanceof GatewayAnswerError && error.stillRunningElsewhere;
      if (!retry || attempt >= IN_PROGRESS_ATTEMPTS) throw error;
      await sleep(IN_PROGRESS_RETRY_MS);
    }
  }
}
