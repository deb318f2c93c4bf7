import { createHmac } from "node:crypto";
import { logger } from "@pos-cloud/common";

export interface NotifierOptions {
  /** The provider's code: the signature travels in `X-<Code>-Signature`. */
  providerCode: string;
  webhookSecret: string;
  /** Waits before each retry; one attempt plus one per entry, then the notification is dropped. */
  retryDelaysMs: readonly number[];
}

/** `sandbox` → `X-Sandbox-Signature`, `sandbox-poll` → `X-Sandbox-Poll-Signature`. */
export function signatureHeader(providerCode: string): string {
  const words = providerCode.split(/[-_]/).map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return `X-${words.join("-")}-Signature`;
}

export const signBody = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("hex");

/**
 * Delivers signed notifications as a provider does: POST the JSON body, retry on anything but a 2xx with growing
 * waits, give up after the last attempt. Only the give-up is logged, so an unreachable receiver costs one line per
 * notification, not one per attempt.
 */
export function notifier(options: NotifierOptions) {
  const timers = new Set<NodeJS.Timeout>();
  const header = signatureHeader(options.providerCode);

  async function attempt(url: string, body: string): Promise<string | undefined> {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", [header]: signBody(options.webhookSecret, body) },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      return response.ok ? undefined : `HTTP ${response.status}`;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  function deliver(url: string, body: string, eventId: string, attemptNumber: number) {
    void attempt(url, body).then((failure) => {
      if (failure === undefined) return;
      const wait = options.retryDelaysMs[attemptNumber - 1];
      if (wait === undefined) {
        logger.warn("sandbox provider: notification not delivered", {
          url,
          event_id: eventId,
          attempts: attemptNumber,
          failure,
        });
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        deliver(url, body, eventId, attemptNumber + 1);
      }, wait);
      timer.unref();
      timers.add(timer);
    });
  }

  return {
    send(url: string, eventId: string, payload: unknown) {
      deliver(url, JSON.stringify(payload), eventId, 1);
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
