import { logger } from "@pos-cloud/common";
import type { ProviderCredentialStore } from "../providers/provider-credentials";
import type { ProviderDirectory } from "../providers/provider-directory";
import type { ProviderEventRepository } from "./provider-event.repository";
import type { ProviderOutcomeService } from "./provider-outcome.service";

export type PaymentPoller = ReturnType<typeof paymentPoller>;

const BATCH = 100;
export const MIN_POLL_INTERVAL_MS = 100;
export const MAX_POLL_INTERVAL_MS = 60_000;

/** Asks polled providers about intents waiting on them; what they answer moves the intent as a webhook would. */
export function paymentPoller(deps: {
  events: ProviderEventRepository;
  outcomes: ProviderOutcomeService;
  providers: ProviderDirectory;
  credentials: ProviderCredentialStore;
  /** Other periodic repairs that ride on the same worker (stale provider refunds). */
  sweeps?: Array<() => Promise<unknown>>;
}) {
  const { events, outcomes, providers, credentials } = deps;
  const sweeps = deps.sweeps ?? [];

  /** One cycle over at most one batch; one intent's failure (provider down) does not stop the others. */
  async function pollOnce(): Promise<number> {
    const codes = providers.pollingCodes();
    if (codes.length === 0) return 0;
    let applied = 0;
    for (const intent of await events.awaitingPoll(codes, BATCH)) {
      try {
        const provider = providers.get(intent.provider_name!);
        const payment = await provider.getPaymentStatus(
          intent.provider_transaction_id!,
          await credentials.forStore(intent.store_id, provider.name),
        );
        if ((await outcomes.applyPolled(intent, payment)).result === "applied") applied++;
      } catch (error) {
        logger.warn("polling a payment failed", { payment_intent_id: intent.id, error });
      }
    }
    return applied;
  }

  return {
    pollOnce,
    /** Polls every `intervalMs` (bounded) until `stop`, which waits for a cycle under way to finish. */
    start(intervalMs: number) {
      const interval = Math.min(Math.max(intervalMs, MIN_POLL_INTERVAL_MS), MAX_POLL_INTERVAL_MS);
      let timer: NodeJS.Timeout | undefined;
      let running: Promise<unknown> = Promise.resolve();
      let stopped = false;
      const schedule = () => {
        timer = setTimeout(() => {
          running = pollOnce()
            .then(() => Promise.all(sweeps.map((sweep) => sweep())))
            .catch((error: unknown) => logger.warn("a polling cycle failed", { error }))
            .finally(() => {
              if (!stopped) schedule();
            });
        }, interval);
      };
      schedule();
      return {
        async stop() {
          stopped = true;
          clearTimeout(timer);
          await running;
        },
      };
    },
  };
}
