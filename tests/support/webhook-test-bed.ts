import { afterAll, afterEach, beforeAll } from "vitest";
import type { PaymentsDeps, WebhookDeliverySettings } from "../../subgraphs/payments/src/index";
import { movableClock, openTestPayments, seedPartner } from "./payments";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

export const webhookTestSettings: WebhookDeliverySettings = {
  allowPrivateUrls: true,
  timeoutMs: 300,
  pollIntervalMs: 50,
};

/**
 * The payments subgraph on a clock the test moves (`advance`, moved back after each test), with partner webhooks
 * posted to a receiver of the test's own: `partnerWithWebhook` seeds a partner whose key posts to a fresh one.
 */
export function webhookTestBed(settings: WebhookDeliverySettings = webhookTestSettings) {
  const clock = movableClock();
  let moved = 0;
  let deps: PaymentsDeps | undefined;
  let receiver: WebhookReceiver | undefined;
  beforeAll(async () => {
    deps = await openTestPayments(clock, { partnerWebhooks: settings });
  });
  afterAll(() => deps?.close());
  afterEach(async () => {
    clock.advance(-moved);
    moved = 0;
    await receiver?.close();
  });
  const bed = {
    clock,
    settings,
    advance(ms: number) {
      clock.advance(ms);
      moved += ms;
    },
    get deps() {
      return deps!;
    },
    /** The receiver of the last partner seeded. */
    get receiver() {
      return receiver!;
    },
    /** Passes of the dispatcher until nothing is due (a key's attempts beyond its concurrency wait for a pass). */
    async drain() {
      while ((await bed.deps.partnerWebhooks.deliverDue()) > 0);
    },
    /** A partner whose key posts to a fresh receiver; `secret` verifies its deliveries. */
    async partnerWithWebhook() {
      const seed = await seedPartner(bed.deps);
      receiver = await startWebhookReceiver();
      await bed.deps.partners.setWebhookUrl(seed.key.client_id, receiver.url);
      return { ...seed, secret: seed.key.webhook_secret };
    },
  };
  return bed;
}
