import { startJobs } from "@pos-cloud/common/jobs";
import { memoryBus } from "@pos-cloud/common/messaging";
import { intentBody, movableClock, openIsolatedPayments, seedPartner } from "@pos-cloud/test-support/payments";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";

const clock = movableClock();
let deps: PaymentsDeps;

beforeAll(async () => {
  deps = await openIsolatedPayments(clock);
});
afterAll(async () => {
  await deps?.close();
});

async function intents(count: number, expires_in_minutes: number) {
  const { caller } = await seedPartner(deps);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push((await deps.paymentIntents.create(caller, intentBody({ expires_in_minutes }))).payment_intent.id);
  }
  return ids;
}

/** The payments jobs' intent expiry, in a registry of its own as a worker runs it. */
const startExpiryJob = () =>
  startJobs(deps.jobs(memoryBus(), { pollIntervalMs: 100 }).filter((job) => job.name === "intent-expiry"));

const statusOf = async (id: string) => (await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status;
const cancelledEvents = (aggregate_id: string) =>
  deps.prisma.outboxEvent.count({ where: { aggregate_id, event_type: "payment_intent.cancelled" } });

describe("the expiry sweeper", () => {
  it("cancels intents past expires_at with one event each, when two sweeps run at once", async () => {
    const overdue = await intents(4, 1);
    const [later] = await intents(1, 30);
    expect(await deps.paymentIntents.expireOverdue()).toBe(0);
    clock.advance(61_000);
    const swept = await Promise.all([deps.paymentIntents.expireOverdue(), deps.paymentIntents.expireOverdue()]);
    expect(swept[0] + swept[1]).toBe(overdue.length);
    for (const id of overdue) {
      expect(await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).toMatchObject({
        status: "cancelled",
        failure_code: "expired",
      });
      expect(await cancelledEvents(id)).toBe(1);
    }
    expect(await statusOf(later!)).toBe("requires_payment_method");
  });

  it("runs in the worker, which picks up where it was after a restart", async () => {
    const [first] = await intents(1, 1);
    clock.advance(61_000);
    const worker = await startExpiryJob();
    await expect.poll(() => statusOf(first!), { timeout: 5000 }).toBe("cancelled");
    await worker.stop();
    // Expired while no worker ran: the next one to start cancels it, and the first is not cancelled twice.
    const [second] = await intents(1, 1);
    clock.advance(61_000);
    const restarted = await startExpiryJob();
    await expect.poll(() => statusOf(second!), { timeout: 5000 }).toBe("cancelled");
    await restarted.stop();
    expect(await cancelledEvents(first!)).toBe(1);
    expect(await cancelledEvents(second!)).toBe(1);
  });
});
