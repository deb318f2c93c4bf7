import { retryPolicies } from "@pos-cloud/common/tasks";
import {
  intentBody,
  movableClock,
  openIsolatedPayments,
  scriptedProvider,
  seedPartner,
} from "@pos-cloud/test-support/payments";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAIM_LEASE_MS } from "../../claims";
import type { PaymentsDeps } from "../../index";

const clock = movableClock();
const scripted = scriptedProvider("scripted-poll");
let deps: PaymentsDeps;

beforeAll(async () => {
  deps = await openIsolatedPayments(clock);
  deps.providers.attach({ providers: [scripted.provider], webhookSecrets: {} });
});
afterAll(async () => {
  await deps?.close();
});

/** `count` intents of one new store, confirmed with the scripted provider: each waits on its QR. */
async function waitingIntents(count: number) {
  const credentials = { merchant_id: "m", api_key: "k", api_secret: "s" };
  const { caller } = await seedPartner(deps, [{ provider_code: "scripted-poll", credentials, is_active: true }]);
  const intents = [];
  for (let i = 0; i < count; i++) {
    const { payment_intent, payment_token } = await deps.paymentIntents.create(caller, intentBody());
    await deps.confirmations.confirm(payment_intent.id, {
      payment_token: payment_token!.token,
      provider: "scripted-poll",
    });
    intents.push(await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id: payment_intent.id } }));
  }
  return intents;
}

const row = (id: string) => deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } });
/** Time enough for every intent polled so far to be due again. */
const longestPollWait = Number(retryPolicies.provider_poll(1).thenMs);
const everythingDue = () => clock.advance(CLAIM_LEASE_MS + longestPollWait);

/** Ends the wait of these intents (the provider declines them) and lets the poller take them out of the queue. */
async function finish(intents: Array<{ provider_transaction_id: string | null }>) {
  for (const intent of intents) scripted.settle(intent.provider_transaction_id!, "failed");
  everythingDue();
  while ((await deps.poller.pollOnce()) > 0);
}

const succeededEvents = (aggregate_id: string) =>
  deps.prisma.outboxEvent.count({ where: { aggregate_id, event_type: "payment_intent.succeeded" } });

describe("the payment poller", () => {
  it("asks about each waiting intent once when two workers poll at the same time", async () => {
    const intents = await waitingIntents(6);
    for (const intent of intents) scripted.settle(intent.provider_transaction_id!, "succeeded");
    scripted.statusCalls.length = 0;
    const applied = await Promise.all([deps.poller.pollOnce(), deps.poller.pollOnce()]);
    expect(applied[0] + applied[1]).toBe(intents.length);
    expect(scripted.statusCalls.sort()).toEqual(intents.map((intent) => intent.provider_transaction_id).sort());
    for (const intent of intents) expect(await succeededEvents(intent.id)).toBe(1);
  });

  it("moves a still-pending intent back in the queue, so the 101st waiting intent is polled next", async () => {
    const intents = await waitingIntents(101);
    scripted.statusCalls.length = 0;
    await deps.poller.pollOnce();
    expect(scripted.statusCalls).toHaveLength(100);
    const last = intents.find((intent) => !scripted.statusCalls.includes(intent.provider_transaction_id!))!;
    await deps.poller.pollOnce();
    expect(scripted.statusCalls).toHaveLength(101);
    expect(scripted.statusCalls.at(-1)).toBe(last.provider_transaction_id);
    // The backoff: 5 s after the first poll that found the payment pending, then 10 s.
    const first = await row(intents[0]!.id);
    expect(first.poll_attempts).toBe(1);
    expect(first.next_poll_at.getTime() - clock().getTime()).toBeLessThanOrEqual(
      scripted.provider.follow.pollIntervalMs,
    );
    clock.advance(scripted.provider.follow.pollIntervalMs);
    await deps.poller.pollOnce();
    const second = await row(intents[0]!.id);
    expect(second.poll_attempts).toBe(2);
    expect(second.next_poll_at.getTime() - clock().getTime()).toBeGreaterThan(scripted.provider.follow.pollIntervalMs);
    expect(second.next_poll_at.getTime() - clock().getTime()).toBeLessThanOrEqual(
      2 * scripted.provider.follow.pollIntervalMs,
    );
    await finish(intents);
  });

  it("leaves the intent of a worker stopped mid-claim to another worker once the claim's lease ends", async () => {
    const [intent] = await waitingIntents(1);
    const release = scripted.hold();
    scripted.statusCalls.length = 0;
    // The first worker claims the intent and never comes back (it hangs, as a dead process would).
    const stopped = deps.poller.pollOnce();
    await expect.poll(() => scripted.statusCalls.length).toBe(1);
    scripted.settle(intent!.provider_transaction_id!, "succeeded");
    // While the lease runs, another worker finds nothing to ask about.
    expect(await deps.poller.pollOnce()).toBe(0);
    expect(scripted.statusCalls).toHaveLength(1);
    clock.advance(CLAIM_LEASE_MS);
    const after = deps.poller.pollOnce();
    await expect.poll(() => scripted.statusCalls.length).toBe(2);
    release();
    await Promise.all([stopped, after]);
    expect((await row(intent!.id)).status).toBe("succeeded");
    expect(await succeededEvents(intent!.id)).toBe(1);
  });
});
