import { randomInt, randomUUID } from "node:crypto";
import { posBill, posOrder, posPayment, readEvent } from "@pos-cloud/common";
import type { BusEvent, MessageBus, Topic } from "@pos-cloud/common/messaging";
import { isolatedStorage } from "@pos-cloud/test-support/databases";
import { decodeTime } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPos, type PosDeps } from "./index";

/** A bus that records what it is given. */
function recordingBus() {
  const published: { topic: Topic; event: BusEvent }[] = [];
  const bus: MessageBus = {
    driver: "memory",
    async publish(topic, event) {
      published.push({ topic, event });
    },
    consume: async () => ({ stop: async () => {} }),
    listen: async () => ({ stop: async () => {} }),
    ping: async () => {},
    connected: () => true,
    close: async () => {},
  };
  return { bus, published };
}

// The store feed's events: every change of an order, bill or payment row writes its outbox row in the same
// transaction (triggers of migration pos_outbox_receipts), and the shared publisher puts them on the bus.
describe("the POS outbox", () => {
  // Storage of its own: the publisher claims the oldest pending rows, and a shared database keeps other tests' rows.
  let storage: Awaited<ReturnType<typeof isolatedStorage<"pos">>>;
  let deps: PosDeps;
  const store = randomInt(1, 2_000_000_000);
  const eventsOf = (aggregate_id: string) =>
    deps.prisma.outboxEvent.findMany({ where: { aggregate_id }, orderBy: { seq: "asc" } });
  const order = (id = randomUUID()) => ({
    id,
    merchant_id: 1,
    store_id: store,
    order_number: `O-${id.slice(0, 8)}`,
    order_type: "takeaway",
  });

  /** A payment row of a bill of its own, pending as the API first writes it. */
  const paymentRow = (amount: number, method_type: string) => ({
    merchant_id: 1,
    store_id: store,
    bill_id: randomUUID(),
    amount,
    total_amount: amount,
    method_type,
  });

  beforeAll(async () => {
    storage = await isolatedStorage(["pos"]);
    deps = await openPos({
      url: storage.urls.pos,
      portal: async () => ({ errors: [{ message: "no portal in this test" }] }),
    });
  });
  afterAll(async () => {
    await deps?.close();
    await storage?.drop();
  });

  it("writes an event with each committed change of an order, and none for a change rolled back", async () => {
    const before = Date.now();
    const created = await deps.prisma.order.create({ data: order() });
    await deps.prisma.order.update({ where: { id: created.id }, data: { status: "cancelled" } });
    // A statement that changes nothing writes nothing.
    await deps.db.query("UPDATE orders SET status = status WHERE id = $1::uuid", [created.id]);
    const rolledBack = randomUUID();
    await expect(
      deps.prisma.$transaction(async (tx) => {
        await tx.order.create({ data: order(rolledBack) });
        throw new Error("the request failed");
      }),
    ).rejects.toThrow("the request failed");

    const events = await eventsOf(created.id);
    expect(events.map((event) => [event.event_type, event.aggregate_type, event.status])).toEqual([
      ["order.created", "order", "pending"],
      ["order.updated", "order", "pending"],
    ]);
    for (const event of events) {
      expect(event.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(decodeTime(event.id)).toBeGreaterThanOrEqual(before - 1000);
      expect(decodeTime(event.id)).toBeLessThanOrEqual(Date.now() + 1000);
    }
    expect(events[1]!.payload).toMatchObject({
      order: { id: created.id, store_id: store, status: "cancelled" },
      metadata: { occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) },
    });
    expect(await eventsOf(rolledBack)).toEqual([]);
  });

  it("leaves a payment's web-view token out of its events", async () => {
    const payment = await deps.prisma.payment.create({
      data: { ...paymentRow(1200, "QR"), payment_token: "pt_secret" },
    });
    const [event] = await eventsOf(payment.id);
    expect(event).toMatchObject({ event_type: "pos_payment.created", aggregate_type: "pos_payment" });
    expect(event!.payload).toMatchObject({ pos_payment: { id: payment.id, store_id: store, status: "pending" } });
    expect(JSON.stringify(event!.payload)).not.toContain("pt_secret");
  });

  it("tells of a cash payment once it completes, not while its gateway call runs, nor of a recovery's lease", async () => {
    const payment = await deps.prisma.payment.create({ data: paymentRow(500, "CASH") });
    await deps.prisma.payment.update({ where: { id: payment.id }, data: { recovery_locked_until: new Date() } });
    expect(await eventsOf(payment.id)).toEqual([]);
    await deps.prisma.payment.update({ where: { id: payment.id }, data: { status: "completed" } });
    const events = await eventsOf(payment.id);
    expect(events.map((event) => event.event_type)).toEqual(["pos_payment.updated"]);
    expect(events[0]!.payload).toMatchObject({ pos_payment: { id: payment.id, status: "completed" } });
  });

  it("is published to the internal topic, an aggregate's events in the order they were written", async () => {
    const created = await deps.prisma.order.create({ data: order() });
    await deps.prisma.order.update({ where: { id: created.id }, data: { status: "cancelled" } });
    const { bus, published } = recordingBus();
    const publisher = deps.outboxPublisher(bus);
    const mine = () => published.filter(({ event }) => event.aggregate_id === created.id);
    for (let batch = 0; batch < 10 && mine().length < 2; batch++) await publisher.publishBatch();
    expect(mine().map(({ topic, event }) => [topic, event.event_type])).toEqual([
      ["events.internal", "order.created"],
      ["events.internal", "order.updated"],
    ]);
    expect((await eventsOf(created.id)).map((event) => event.status)).toEqual(["published", "published"]);
  });

  it("publishes the catalogue's columns of each object, so a column added to a table stays out of the store feed", async () => {
    for (const table of ["orders", "bills", "payments"])
      await deps.db.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS staff_note text DEFAULT 'note-secret'`);
    const created = await deps.prisma.order.create({ data: order() });
    const bill = await deps.prisma.bill.create({
      data: {
        merchant_id: 1,
        store_id: store,
        order_id: created.id,
        bill_number: `B-${created.id.slice(0, 8)}`,
        staff_code: "S1",
        subtotal: 1000,
        discount_amount: 0,
        tax_amount: 100,
        total_amount: 1100,
      },
    });
    const payment = await deps.prisma.payment.create({
      data: {
        merchant_id: 1,
        store_id: store,
        bill_id: bill.id,
        amount: 1100,
        total_amount: 1100,
        method_type: "CASH",
        status: "completed",
      },
    });
    await deps.prisma.order.update({ where: { id: created.id }, data: { status: "completed", bill_id: bill.id } });
    const { bus, published } = recordingBus();
    const publisher = deps.outboxPublisher(bus);
    const ids = new Set([created.id, bill.id, payment.id]);
    const mine = () => published.filter(({ event }) => ids.has(event.aggregate_id)).map(({ event }) => event);
    for (let batch = 0; batch < 10 && mine().length < 4; batch++) await publisher.publishBatch();

    expect(mine().map((event) => event.event_type)).toEqual([
      "order.created",
      "bill.created",
      "pos_payment.created",
      "order.updated",
    ]);
    const catalogued = { order: posOrder, bill: posBill, pos_payment: posPayment };
    for (const event of mine()) {
      expect(JSON.stringify(event.payload)).not.toContain("note-secret");
      const kind = event.aggregate_type as keyof typeof catalogued;
      expect(Object.keys(event.payload[kind] ?? {}).sort()).toEqual(Object.keys(catalogued[kind].shape).sort());
      expect(readEvent(event)).toMatchObject({ payload: { [kind]: { id: event.aggregate_id, store_id: store } } });
    }
    expect(readEvent(mine()[3]!)).toMatchObject({ payload: { order: { status: "completed", bill_id: bill.id } } });
  });
});
