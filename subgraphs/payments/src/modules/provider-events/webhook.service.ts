import { setTimeout as sleep } from "node:timers/promises";
import { AppError, type Caller, logger } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { ProviderDirectory } from "../providers/provider-directory";
import { parseProviderNotification } from "../providers/webhook-notification";
import { verifyWebhookSignature, webhookSignatureHeader } from "../providers/webhook-signature";
import type { OutcomeResult, ProviderEventRepository } from "./provider-event.repository";

export type WebhookService = ReturnType<typeof webhookService>;

/** Pauses between the attempts of one delivery; after the last, the notification goes to the dead-letter store. */
export const DEFAULT_RETRY_DELAYS_MS = [50, 250];
const MAX_LISTED = 100;

/** Dead letters are for operators: the platform's own SYSTEM_OP users and the edge itself, never partners. */
function requireOperator(caller: Caller): void {
  if (caller.type === "service" || (caller.type === "user" && caller.role === "SYSTEM_OP")) return;
  throw new AppError("forbidden", "only platform operators may see or replay dead letters");
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function webhookService(deps: {
  events: ProviderEventRepository;
  providers: ProviderDirectory;
  clock: Clock;
  retryDelaysMs?: number[];
}) {
  const { events, providers, clock } = deps;
  const delays = deps.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;

  async function apply(code: string, raw: Buffer): Promise<OutcomeResult> {
    return events.applyNotification(parseProviderNotification(code, raw), clock());
  }

  return {
    /**
     * One inbound notification: signature over the raw bytes first (401 `unauthorized`), then the body (400), then
     * processing with retries. A notification that still fails is kept as a dead letter and acknowledged, so the
     * provider stops resending what only an operator can fix.
     */
    async receive(code: string, rawBase64: string, signatures: Record<string, unknown>) {
      const { provider, secret } = providers.forWebhook(code);
      const raw = Buffer.from(rawBase64, "base64");
      const signature = signatures[webhookSignatureHeader(provider.name)];
      if (!verifyWebhookSignature(raw, typeof signature === "string" ? signature : undefined, secret)) {
        throw new AppError("unauthorized", "the provider signature does not match");
      }
      const notification = parseProviderNotification(provider.name, raw);
      let lastError: unknown;
      for (let attempt = 0; attempt <= delays.length; attempt++) {
        if (attempt > 0) await sleep(delays[attempt - 1]);
        try {
          return { received: true, result: await apply(provider.name, raw) };
        } catch (error) {
          lastError = error;
        }
      }
      logger.warn("provider notification dead-lettered", { provider: provider.name, event_id: notification.event_id });
      await events.deadLetter(
        provider.name,
        notification.event_id,
        raw.toString("utf8"),
        describe(lastError),
        delays.length + 1,
        clock(),
      );
      return { received: true, result: "dead_lettered" };
    },
    async deadLetters(caller: Caller) {
      requireOperator(caller);
      return events.openDeadLetters(MAX_LISTED);
    },
    /** Processes a dead letter once more; it stays open with its new error when that fails again. */
    async replay(caller: Caller, id: string) {
      requireOperator(caller);
      const letter = await events.findDeadLetter(id);
      if (!letter) throw new AppError("not_found", "dead letter not found");
      if (letter.resolved_at) return { dead_letter: letter, result: "duplicate" };
      try {
        const result = await apply(letter.provider, Buffer.from(letter.raw_body, "utf8"));
        return { dead_letter: await events.replayed(id, { resolved: true }, clock()), result };
      } catch (error) {
        return {
          dead_letter: await events.replayed(id, { resolved: false, error: describe(error) }, clock()),
          result: "failed",
        };
      }
    },
  };
}
