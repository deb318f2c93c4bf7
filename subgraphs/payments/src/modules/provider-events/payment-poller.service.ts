import { logger } from "@pos-cloud/common";
import { countOutcome, type NextAttempt, nextAttempt, retryPolicies } from "@pos-cloud/common/tasks";
import type { Clock } from "../../clock";
import type { ProviderCredentialStore, ProviderDirectory } from "../providers";
import type { ProviderEventRepository } from "./provider-event.repository";
import type { ProviderOutcomeService } from "./provider-outcome.service";

export type PaymentPoller = ReturnType<typeof paymentPoller>;

const BATCH = 100;

/**
 * Asks polled providers about intents waiting on them; what they answer moves the intent as a webhook would. Any
 * number of instances may run: each claims its intents (claims.ts), so no intent is asked about twice at once.
 */
export function paymentPoller(deps: {
  events: ProviderEventRepository;
  outcomes: ProviderOutcomeService;
  providers: ProviderDirectory;
  credentials: ProviderCredentialStore;
  clock: Clock;
}) {
  const { events, outcomes, providers, credentials, clock } = deps;

  /**
   * One cycle over at most one batch of due intents; one intent's failure (provider down) does not stop the others.
   * Every polled intent is pushed back by the backoff, so a payment still pending lets the queue move on.
   */
  async function pollOnce(): Promise<number> {
    const codes = providers.pollingCodes();
    if (codes.length === 0) return 0;
    let applied = 0;
    for (const intent of await events.claimPolls(codes, clock(), BATCH)) {
      let moved = false;
      const provider = providers.get(intent.provider_name!);
      try {
        const payment = await provider.getPaymentStatus(
          intent.provider_transaction_id!,
          await credentials.forStore(intent.store_id, provider.name),
        );
        moved = (await outcomes.applyPolled(intent, payment)).result === "applied";
      } catch (error) {
        logger.warn("polling a payment failed", { payment_intent_id: intent.id, error });
      }
      if (moved) applied++;
      // Polled again its provider's interval after a poll that moved it, by the `provider_poll` policy while it waits.
      const attempts = moved ? 0 : intent.poll_attempts + 1;
      const first = provider.follow.pollIntervalMs;
      const next = moved ? null : (nextAttempt(retryPolicies.provider_poll(first), attempts, clock()) as NextAttempt);
      await events.schedulePoll(intent.id, attempts, next?.at ?? new Date(clock().getTime() + first));
      countOutcome("provider_poll", moved ? "done" : "retried");
    }
    return applied;
  }

  return { pollOnce };
}
