import { intentBody, movableClock, openTestPayments, seedPartner } from "@pos-cloud/test-support/payments";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";
import { hashPaymentToken } from "./payment-token.rules";

const clock = movableClock();
let deps: PaymentsDeps;
beforeAll(async () => {
  deps = await openTestPayments(clock);
});
afterAll(() => deps?.close());

const eventsOf = (aggregate_id: string) =>
  deps.prisma.outboxEvent.findMany({ where: { aggregate_id }, orderBy: { id: "asc" } });

describe("payment intent lifecycle", () => {
  it("writes the intent, a hashed token and a pending created event together", async () => {
    const { caller } = await seedPartner(deps);
    const created = await deps.paymentIntents.create(caller, intentBody());
    const intent = created.payment_intent;
    expect(intent.id).toMatch(/^pi_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(intent.status).toBe("requires_payment_method");
    expect(intent.expires_at.getTime() - intent.created_at.getTime()).toBe(30 * 60_000);
    const token = created.payment_token!.token;
    const stored = await deps.prisma.paymentToken.findMany({ where: { payment_intent_id: intent.id } });
    expect(stored).toEqual([expect.objectContaining({ token_hash: hashPaymentToken(token), consumed_at: null })]);
    expect(JSON.stringify(stored)).not.toContain(token);
    const [event, ...others] = await eventsOf(intent.id);
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      event_type: "payment_intent.created",
      aggregate_type: "payment_intent",
      aggregate_id: intent.id,
      status: "pending",
      retry_count: 0,
      published_at: null,
    });
    expect(event!.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect((event!.payload as any).payment_intent).toMatchObject({
      id: intent.id,
      amount: 1200,
      status: intent.status,
    });
  });

  it("lets a used token (consumed by confirm) follow and cancel its intent, but not confirm it again", async () => {
    const { caller } = await seedPartner(deps);
    const { payment_intent, payment_token } = await deps.paymentIntents.create(caller, intentBody());
    await deps.prisma.paymentToken.updateMany({
      where: { payment_intent_id: payment_intent.id },
      data: { consumed_at: new Date() },
    });
    const token = payment_token!.token;
    await expect(deps.paymentIntents.forConfirm(payment_intent.id, token)).rejects.toMatchObject({
      code: "invalid_token",
    });
    expect(await deps.paymentIntents.retrieve(payment_intent.id, token)).toMatchObject({ id: payment_intent.id });
    expect(await deps.paymentIntents.cancel(payment_intent.id, token)).toMatchObject({ status: "cancelled" });
  });

  it("creates a cash intent succeeded with only its created event", async () => {
    const { caller } = await seedPartner(deps);
    const { payment_intent } = await deps.paymentIntents.create(
      caller,
      intentBody({ payment_method_type: "cash", processing_mode: "manual", payment_method_types: undefined }),
    );
    expect(payment_intent.status).toBe("succeeded");
    const events = await eventsOf(payment_intent.id);
    expect(events.map((e) => [e.event_type, (e.payload as any).payment_intent.status])).toEqual([
      ["payment_intent.created", "succeeded"],
    ]);
  });

  it("captures an external intent and cancels with a token, each with its event", async () => {
    const { caller } = await seedPartner(deps);
    const card = await deps.paymentIntents.create(caller, intentBody({ payment_method_types: ["credit_card"] }));
    expect(card.payment_intent.status).toBe("requires_action");
    const captured = await deps.paymentIntents.capture(caller, card.payment_intent.id, { amount: 1200 });
    expect(captured.payment_intent).toMatchObject({ status: "succeeded", captured_at: expect.any(Date) });
    expect((await eventsOf(card.payment_intent.id)).map((e) => e.event_type)).toEqual([
      "payment_intent.created",
      "payment_intent.succeeded",
    ]);

    const qr = await deps.paymentIntents.create(caller, intentBody());
    const cancelled = await deps.paymentIntents.cancel(qr.payment_intent.id, qr.payment_token!.token);
    expect(cancelled.status).toBe("cancelled");
    await expect(deps.paymentIntents.cancel(qr.payment_intent.id, qr.payment_token!.token)).rejects.toMatchObject({
      code: "invalid_state",
    });
    expect((await eventsOf(qr.payment_intent.id)).map((e) => e.event_type)).toEqual([
      "payment_intent.created",
      "payment_intent.cancelled",
    ]);
  });

  it("expires an open intent when it is first read after expires_at, with one event", async () => {
    const { caller } = await seedPartner(deps);
    const { payment_intent, payment_token } = await deps.paymentIntents.create(
      caller,
      intentBody({ expires_in_minutes: 1 }),
    );
    clock.advance(61_000);
    try {
      const read = await deps.paymentIntents.retrieve(payment_intent.id, payment_token!.token);
      expect(read).toMatchObject({ status: "cancelled", failure_code: "expired" });
      await deps.paymentIntents.retrieve(payment_intent.id, payment_token!.token);
      await expect(deps.paymentIntents.cancel(payment_intent.id, payment_token!.token)).rejects.toMatchObject({
        code: "intent_expired",
      });
      expect((await eventsOf(payment_intent.id)).map((e) => e.event_type)).toEqual([
        "payment_intent.created",
        "payment_intent.cancelled",
      ]);
    } finally {
      clock.advance(-61_000);
    }
  });

  it("keeps nothing of a create that fails on a duplicate merchant_ref_id", async () => {
    const { caller } = await seedPartner(deps);
    const body = intentBody();
    await deps.paymentIntents.create(caller, body);
    const before = await deps.prisma.outboxEvent.count();
    await expect(deps.paymentIntents.create(caller, { ...body, amount: 5 })).rejects.toMatchObject({
      code: "conflict",
      details: { field: "merchant_ref_id" },
    });
    expect(await deps.prisma.outboxEvent.count()).toBe(before);
  });

  it("lets a partner reach only its own intents", async () => {
    const mine = await seedPartner(deps);
    const theirs = await seedPartner(deps);
    const { payment_intent } = await deps.paymentIntents.create(
      mine.caller,
      intentBody({ payment_method_types: ["credit_card"] }),
    );
    await expect(deps.paymentIntents.capture(theirs.caller, payment_intent.id, {})).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await deps.paymentIntents.list(theirs.caller, {})).toMatchObject({ nodes: [], total_count: 0 });
    // Another partner's store is answered as a store that does not exist: no partner learns which ids exist.
    const unknown = {
      code: "invalid_request",
      message: "none of your stores has this code or id",
      details: { field: "merchant_store_id", constraint: "unknown_store" },
    };
    await expect(
      deps.paymentIntents.create(mine.caller, intentBody({ merchant_store_id: String(theirs.store.store_id) })),
    ).rejects.toMatchObject(unknown);
    await expect(
      deps.paymentIntents.create(mine.caller, intentBody({ merchant_store_id: "2147483000" })),
    ).rejects.toMatchObject(unknown);
  });
});
