import { startJobs } from "@pos-cloud/common/jobs";
import { type BusEvent, memoryBus } from "@pos-cloud/common/messaging";
import { metrics } from "@pos-cloud/common/metrics";
import { terminalIntentEvent } from "@pos-cloud/test-support/partner-events";
import { seedPartner } from "@pos-cloud/test-support/payments";
import { webhookTestBed } from "@pos-cloud/test-support/webhook-test-bed";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { webhookDeliveryRepository } from "./webhook-delivery.repository";
import { webhookDispatcher } from "./webhook-dispatcher.service";

const bed = webhookTestBed();
const { clock, advance, settings } = bed;

/** A terminal intent event as the outbox publisher puts it on the webhook-delivery topic. */
const terminalEvent = (client_partner_id: number, status = "succeeded"): BusEvent =>
  terminalIntentEvent(client_partner_id, clock(), status);

const deliveriesOf = (event: BusEvent) =>
  bed.deps.prisma.partnerWebhookDelivery.findMany({ where: { source_event_id: event.id } });

const verify = (secret: string, request: { headers: Record<string, unknown>; body: string }) =>
  new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<string, unknown>;

describe("partner webhook delivery", () => {
  it("posts a terminal event once, signed so that standardwebhooks verifies it, even when the bus redelivers", async () => {
    const { partner, key, secret } = await bed.partnerWithWebhook();
    const event = terminalEvent(partner.id, "failed");
    await bed.deps.partnerWebhooks.accept(event);
    await bed.deps.partnerWebhooks.accept(event);
    await bed.deps.partnerWebhooks.deliverDue();

    expect(bed.receiver.received).toHaveLength(1);
    const request = bed.receiver.received[0]!;
    const body = verify(secret, request);
    expect(body).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/),
      type: "payment_intent.failed",
      created_at: event.created_at,
      data: {
        id: event.aggregate_id,
        status: "failed",
        amount: 1200,
        currency: "JPY",
        store_id: 7,
        merchant_ref_id: (event.payload.payment_intent as { merchant_ref_id: string }).merchant_ref_id,
        captured_at: null,
        failure_code: "card_declined",
        failure_message: "declined",
      },
    });
    expect(request.headers["x-gw-event-id"]).toBe(body.id);
    expect(request.headers["webhook-id"]).toBe(body.id);
    expect(request.headers["x-gw-signature"]).toBe(request.headers["webhook-signature"]);
    expect(request.headers["x-gw-timestamp"]).toBe(request.headers["webhook-timestamp"]);
    expect(Math.abs(Number(request.headers["x-gw-timestamp"]) - clock().getTime() / 1000)).toBeLessThan(5);
    expect(await deliveriesOf(event)).toMatchObject([{ status: "delivered", attempts: 1, last_status_code: 204 }]);
    expect(await metrics.getSingleMetricAsString("pgw_webhook_delivery_total")).toContain(
      `pgw_webhook_delivery_total{api_key_id="${key.client_id}",status="delivered"} 1`,
    );
  });

  it("ignores events that are not terminal and partners without a webhook", async () => {
    const { partner } = await bed.partnerWithWebhook();
    const other = await seedPartner(bed.deps);
    const created = { ...terminalEvent(partner.id), event_type: "payment_intent.created" };
    await bed.deps.partnerWebhooks.accept(created);
    const unhooked = terminalEvent(other.partner.id);
    await bed.deps.partnerWebhooks.accept(unhooked);
    await bed.deps.partnerWebhooks.deliverDue();
    expect(await deliveriesOf(created)).toEqual([]);
    expect(await deliveriesOf(unhooked)).toEqual([]);
  });

  it("retries after a 5xx and a timeout at about 5 s and 25 s, with the same event id", async () => {
    const { partner, secret } = await bed.partnerWithWebhook();
    bed.receiver.answer([500, "hang"], 200);
    const event = terminalEvent(partner.id);
    await bed.deps.partnerWebhooks.accept(event);

    await bed.deps.partnerWebhooks.deliverDue();
    const [first] = await deliveriesOf(event);
    expect(first).toMatchObject({ status: "pending", attempts: 1, last_status_code: 500, last_error: "HTTP 500" });
    expect(first!.next_attempt_at.getTime() - first!.updated_at.getTime()).toBe(5_000);

    advance(4_000);
    await bed.deps.partnerWebhooks.deliverDue();
    expect(bed.receiver.received).toHaveLength(1);

    advance(1_000);
    await bed.deps.partnerWebhooks.deliverDue();
    const [second] = await deliveriesOf(event);
    expect(second).toMatchObject({ status: "pending", attempts: 2, last_status_code: null });
    expect(second!.last_error).toMatch(/no response within 300 ms/);
    expect(second!.next_attempt_at.getTime() - second!.updated_at.getTime()).toBe(20_000);

    advance(20_000);
    await bed.deps.partnerWebhooks.deliverDue();
    expect(await deliveriesOf(event)).toMatchObject([{ status: "delivered", attempts: 3 }]);
    expect(bed.receiver.received).toHaveLength(3);
    const ids = bed.receiver.received.map((request) => request.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(1);
    // The last attempt is signed at its own time, so it still verifies now.
    expect(verify(secret, bed.receiver.received[2]!).id).toBe(ids[0]);
  });

  it("dead-letters after the third failure; a replay sends the same event again", async () => {
    const { partner, key } = await bed.partnerWithWebhook();
    bed.receiver.answer([], 503);
    const event = terminalEvent(partner.id);
    await bed.deps.partnerWebhooks.accept(event);
    for (const pause of [0, 5_000, 20_000]) {
      advance(pause);
      await bed.deps.partnerWebhooks.deliverDue();
    }
    const [dead] = await deliveriesOf(event);
    expect(dead).toMatchObject({ status: "dead", attempts: 3, last_status_code: 503 });
    advance(600_000);
    await bed.deps.partnerWebhooks.deliverDue();
    expect(bed.receiver.received).toHaveLength(3);

    const operator = { type: "user" as const, id: "op", role: "SYSTEM_OP", scopes: [] };
    const letters = await bed.deps.apiKeyWebhooks.deadLetters(operator, key.client_id);
    expect(letters.map((letter) => letter.id)).toEqual([dead!.id]);
    await expect(
      bed.deps.apiKeyWebhooks.deadLetters({ ...operator, role: "MERCHANT_ADMIN" }, null),
    ).rejects.toMatchObject({
      code: "forbidden",
    });

    bed.receiver.answer([], 200);
    expect(await bed.deps.apiKeyWebhooks.replay(operator, dead!.id)).toMatchObject({ status: "pending", attempts: 0 });
    await bed.deps.partnerWebhooks.deliverDue();
    expect(await deliveriesOf(event)).toMatchObject([{ id: dead!.id, status: "delivered", attempts: 1 }]);
    expect(bed.receiver.received[3]!.headers["webhook-id"]).toBe(dead!.id);
    expect(bed.receiver.received[3]!.body).toBe(dead!.body);
    await expect(bed.deps.apiKeyWebhooks.replay(operator, dead!.id)).rejects.toMatchObject({ code: "invalid_state" });
  });

  it("keeps retries across a restart, and takes over an attempt whose worker died after its lease", async () => {
    const { partner } = await bed.partnerWithWebhook();
    bed.receiver.answer([500], 204);
    const event = terminalEvent(partner.id);
    await bed.deps.partnerWebhooks.accept(event);
    await bed.deps.partnerWebhooks.deliverDue();

    // Another process on the same database: it finds the retry where the first left it.
    const restarted = webhookDispatcher(
      { deliveries: webhookDeliveryRepository(bed.deps.prisma), partners: bed.deps.partners, clock },
      settings,
    );
    advance(5_000);
    await restarted.deliverDue();
    expect(await deliveriesOf(event)).toMatchObject([{ status: "delivered", attempts: 2 }]);

    // A worker that claims a delivery and dies holds it for the lease, then any worker takes it over.
    const second = terminalEvent(partner.id);
    await restarted.accept(second);
    const deliveries = webhookDeliveryRepository(bed.deps.prisma);
    expect(await deliveries.claimDue(clock(), 10, new Date(clock().getTime() + 60_000), [])).toHaveLength(1);
    await restarted.deliverDue();
    expect(bed.receiver.received).toHaveLength(2);
    advance(60_000);
    await restarted.deliverDue();
    expect(await deliveriesOf(second)).toMatchObject([{ status: "delivered", attempts: 1 }]);
  });

  it("signs with both secrets for 24 hours after a rotation, then with the new one only", async () => {
    const { partner, key, caller, secret: old } = await bed.partnerWithWebhook();
    const rotation = await bed.deps.apiKeyWebhooks.rotateSecret(caller, key.client_id);
    expect(rotation.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    await bed.deps.partnerWebhooks.accept(terminalEvent(partner.id));
    await bed.deps.partnerWebhooks.deliverDue();
    const during = bed.receiver.received[0]!;
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(old, during).type).toBe("payment_intent.succeeded");
    expect(verify(rotation.webhook_secret, during).type).toBe("payment_intent.succeeded");

    advance(24 * 60 * 60 * 1000 + 1_000);
    await bed.deps.partnerWebhooks.accept(terminalEvent(partner.id));
    await bed.deps.partnerWebhooks.deliverDue();
    const after = bed.receiver.received[1]!;
    const id = String(after.headers["webhook-id"]);
    const at = new Date(Number(after.headers["webhook-timestamp"]) * 1000);
    const signatures = String(after.headers["webhook-signature"]).split(" ");
    expect(signatures).toEqual([new Webhook(rotation.webhook_secret).sign(id, at, after.body)]);
    expect(signatures).not.toContain(new Webhook(old).sign(id, at, after.body));
  });

  it("never lets a slow partner hold up another", async () => {
    const slow = await bed.partnerWithWebhook();
    const slowReceiver = bed.receiver;
    slowReceiver.answer([], "hang");
    const fast = await bed.partnerWithWebhook();
    const dispatcher = webhookDispatcher(
      { deliveries: webhookDeliveryRepository(bed.deps.prisma), partners: bed.deps.partners, clock },
      { ...settings, timeoutMs: 10_000, concurrency: 2, perKeyConcurrency: 1 },
    );
    const bus = memoryBus();
    const consumer = await dispatcher.consume(bus);
    const running = await startJobs([dispatcher.job()]);
    try {
      for (let i = 0; i < 3; i++) await bus.publish("webhooks.delivery", terminalEvent(slow.partner.id));
      await slowReceiver.next();
      await bus.publish("webhooks.delivery", terminalEvent(fast.partner.id));
      const arrived = await bed.receiver.next();
      expect(verify(fast.secret, arrived).type).toBe("payment_intent.succeeded");
      // The slow partner's first attempt is still waiting for its answer, and its others wait behind it.
      expect(slowReceiver.hangingCount).toBe(1);
      expect(slowReceiver.received).toHaveLength(1);
    } finally {
      await slowReceiver.close();
      await running.stop();
      await consumer.stop();
      await bus.close();
    }
  });

  it("posts as a registry job that a new delivery runs at once, long before its poll", async () => {
    const { partner, secret } = await bed.partnerWithWebhook();
    const dispatcher = webhookDispatcher(
      { deliveries: webhookDeliveryRepository(bed.deps.prisma), partners: bed.deps.partners, clock },
      { ...settings, pollIntervalMs: 60 * 60_000 },
    );
    const running = await startJobs([dispatcher.job()]);
    try {
      await dispatcher.accept(terminalEvent(partner.id));
      expect(verify(secret, await bed.receiver.next()).type).toBe("payment_intent.succeeded");
      expect(running.list().map((job) => job.name)).toEqual(["partner-webhooks"]);
    } finally {
      await running.stop();
    }
  });

  it("refuses to post to a private address unless allowed", async () => {
    const { partner } = await bed.partnerWithWebhook();
    const strict = webhookDispatcher(
      { deliveries: webhookDeliveryRepository(bed.deps.prisma), partners: bed.deps.partners, clock },
      { ...settings, allowPrivateUrls: false },
    );
    const event = terminalEvent(partner.id);
    await strict.accept(event);
    await strict.deliverDue();
    expect(bed.receiver.received).toHaveLength(0);
    const [refused] = await deliveriesOf(event);
    expect(refused).toMatchObject({ status: "pending", attempts: 1, last_status_code: null });
    expect(refused!.last_error).toBe("127.0.0.1 is not a public address");
  });

  it("drops a delivery whose key lost its webhook before it went out", async () => {
    const { partner, key } = await bed.partnerWithWebhook();
    const event = terminalEvent(partner.id);
    await bed.deps.partnerWebhooks.accept(event);
    await bed.deps.partners.setWebhookUrl(key.client_id, null);
    await bed.deps.partnerWebhooks.deliverDue();
    expect(await deliveriesOf(event)).toMatchObject([{ status: "dropped" }]);
    expect(bed.receiver.received).toHaveLength(0);
  });
});
