import { setTimeout as sleep } from "node:timers/promises";
import { AppError, type Caller, logger, requireOperator } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { PaymentProvider, ProviderDirectory, ProviderNotification } from "../providers";
import type { ProviderEventRepository } from "./provider-event.repository";
import type { ProviderOutcomeService } from "./provider-outcome.service";

export type WebhookService = ReturnType<typeof webhookService>;

/** Pauses between the attempts of one delivery; after the last, the notification goes to the dead-letter store. */
export const DEFAULT_RETRY_DELAYS_MS = [50, 250];
const MAX_LISTED = 100;

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * An unsigned notification names a payment and nothing more is believed: its intent, if still waiting, is polled at
 * once (the poll job reads the provider's API and applies what it answers). A forged one costs one read.
 */
async function prompted(events: ProviderEventRepository, provider: PaymentProvider, raw: Buffer, now: Date) {
  const named = provider.prompts!.parse(raw);
  if (named === "not_a_payment") return { received: true, result: "ignored" };
  const due = await events.pollNow(provider.name, named.provider_transaction_id, now);
  return { received: true, result: due ? "prompted" : "ignored" };
}

/** A dead letter was a payment notification its provider's adapter read once. */
function parseDeadLetter(providers: ProviderDirectory, code: string, rawBody: string): ProviderNotification {
  const parsed = providers.forWebhook(code).provider.notifications!.parse(Buffer.from(rawBody, "utf8"));
  if (parsed === "not_a_payment") throw new AppError("invalid_state", "the dead letter is not a payment notification");
  return parsed;
}

export function webhookService(deps: {
  events: ProviderEventRepository;
  outcomes: ProviderOutcomeService;
  providers: ProviderDirectory;
  clock: Clock;
  retryDelaysMs?: number[];
}) {
  const { events, outcomes, providers, clock } = deps;
  const delays = deps.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;

  /**
   * A signed body is a replay risk for as long as it is accepted: a notification whose own time is further from
   * now than the provider's window (either way) is refused as an expired timestamp is (401), and moves nothing.
   */
  function refuseOutsideWindow(provider: PaymentProvider, notification: ProviderNotification) {
    const maxAge = provider.notificationMaxAgeSeconds;
    if (Math.abs(clock().getTime() - notification.occurred_at.getTime()) <= maxAge * 1000) return;
    logger.error("provider notification outside its time window refused", {
      alert: "provider_notification_outside_window",
      provider: provider.name,
      event_id: notification.event_id,
      occurred_at: notification.occurred_at,
    });
    throw new AppError("unauthorized", `the notification's timestamp is more than ${maxAge} seconds from now`, {
      field: "timestamp",
      constraint: "max_age",
      max_age_seconds: maxAge,
    });
  }

  /** Applies with retries; the reason it still failed (or does not match its intent) goes to the dead letter. */
  async function applyWithRetries(notification: ProviderNotification) {
    let lastError: unknown;
    for (let attempt = 0; attempt <= delays.length; attempt++) {
      if (attempt > 0) await sleep(delays[attempt - 1]);
      try {
        const applied = await outcomes.applyNotification(notification);
        // A mismatch is the same at every attempt: it is kept at once.
        return applied.result === "rejected" ? { reason: applied.reason, attempts: attempt + 1 } : applied;
      } catch (error) {
        lastError = error;
      }
    }
    return { reason: describe(lastError), attempts: delays.length + 1 };
  }

  return {
    /**
     * One inbound notification, checked and read by its provider's adapter: signature over the raw bytes first (401
     * `unauthorized`), then the body (400; a notification about something other than a payment is acknowledged and
     * ignored), its age (401), then processing with retries. A notification that still fails, or whose amount or
     * currency is not its intent's, is kept as a dead letter with an alert and acknowledged, so the provider stops
     * resending what only an operator can fix.
     */
    async receive(code: string, rawBase64: string, signatures: Record<string, unknown>) {
      const { provider, secret } = providers.forWebhook(code);
      const raw = Buffer.from(rawBase64, "base64");
      if (provider.prompts) return prompted(events, provider, raw, clock());
      const notifications = provider.notifications!;
      if (!notifications.verify(raw, signatures, secret!)) {
        throw new AppError("unauthorized", "the provider signature does not match");
      }
      const notification = notifications.parse(raw);
      if (notification === "not_a_payment") return { received: true, result: "ignored" };
      refuseOutsideWindow(provider, notification);
      const applied = await applyWithRetries(notification);
      if ("result" in applied) return { received: true, result: applied.result };
      logger.error("provider notification dead-lettered", {
        alert: "provider_notification_dead_lettered",
        provider: provider.name,
        event_id: notification.event_id,
        reason: applied.reason,
      });
      await events.deadLetter(
        provider.name,
        notification.event_id,
        raw.toString("utf8"),
        applied.reason,
        applied.attempts,
        clock(),
      );
      return { received: true, result: "dead_lettered" };
    },
    async deadLetters(caller: Caller) {
      requireOperator(caller);
      return events.openDeadLetters(MAX_LISTED);
    },
    /**
     * Processes a dead letter once more, whatever its age (an operator chose to); it stays open with its new error
     * when that fails again or still does not match its intent.
     */
    async replay(caller: Caller, id: string) {
      requireOperator(caller);
      const letter = await events.findDeadLetter(id);
      if (!letter) throw new AppError("not_found", "dead letter not found");
      if (letter.resolved_at) return { dead_letter: letter, result: "duplicate" };
      const applied = await outcomes
        .applyNotification(parseDeadLetter(providers, letter.provider, letter.raw_body))
        .catch((error: unknown) => ({ result: "failed" as const, reason: describe(error) }));
      if ("reason" in applied) {
        return {
          dead_letter: await events.replayed(id, { resolved: false, error: applied.reason }, clock()),
          result: applied.result,
        };
      }
      return { dead_letter: await events.replayed(id, { resolved: true }, clock()), result: applied.result };
    },
  };
}
