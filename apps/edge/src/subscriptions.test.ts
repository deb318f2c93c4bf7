import type { Caller } from "@pos-cloud/common";
import { type MessageBus, memoryBus } from "@pos-cloud/common/messaging";
import { buildSchema, type DocumentNode, parse, print } from "graphql";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CallSubgraph } from "./subgraph-client";
import { createSubscriptions, type Subscriptions } from "./subscriptions";

const schema = buildSchema(`
  type Query { store(id: Int!): Store! }
  type Store { payment_intent(id: String!): PaymentIntent! }
  type PaymentIntent { id: String! status: String! }
  type Subscription { paymentIntentUpdated(id: String!): PaymentIntent! }
`);
const device: Caller = { type: "device", id: "d", merchantId: 1, storeId: 7, scopes: [] };
const query = "subscription Follow($id: String!) { intent: paymentIntentUpdated(id: $id) { status } }";

let bus: MessageBus;
let subscriptions: Subscriptions;
let status: string;
let reads: DocumentNode[];
const closeExpired = vi.fn();

const changed = (id: string, payload: Record<string, unknown> = {}) =>
  bus.publish("events.internal", {
    id: `evt-${Math.random()}`,
    event_type: "payment_intent.requires_action",
    aggregate_type: "payment_intent",
    aggregate_id: id,
    payload,
    created_at: new Date().toISOString(),
  });

beforeEach(async () => {
  bus = memoryBus();
  status = "requires_payment_method";
  reads = [];
  subscriptions = await createSubscriptions({
    bus,
    run: async (document) => {
      reads.push(document);
      return { data: { store: { payment_intent: { status } } } };
    },
    callSubgraph: (async () => ({ subscribedPaymentIntent: { store_id: 7, status } })) as CallSubgraph,
    readByToken: async () => ({ data: { paymentIntentByToken: { status } } }),
  });
});
afterEach(async () => {
  await subscriptions.close();
  await bus.close();
});

async function open(stillValid = () => true) {
  const opened = await subscriptions.open({
    schema,
    document: parse(query),
    variables: { id: "pi_1" },
    caller: device,
    stillValid,
    closeExpired,
  });
  if ("errors" in opened) throw new Error(JSON.stringify(opened.errors));
  return opened.updates;
}

describe("subscriptions on the edge", () => {
  it("reads the intent under its store as a query, in the subscription's shape", async () => {
    const updates = await open();
    expect(print(reads[0]!)).toBe(
      print(parse("query Follow($id: String!) { store(id: 7) { payment_intent(id: $id) { status } } }")),
    );
    expect((await updates.next()).value).toEqual({ data: { intent: { status: "requires_payment_method" } } });
    await updates.return();
  });

  it("sends a state once however many events announce it, and completes after a terminal one", async () => {
    const updates = await open();
    await updates.next();
    const next = updates.next();
    await changed("pi_1");
    await changed("pi_1");
    status = "succeeded";
    await changed("pi_1");
    expect((await next).value).toEqual({ data: { intent: { status: "succeeded" } } });
    expect((await updates.next()).done).toBe(true);
  });

  it("answers from an event that holds the selected fields, without a read, and completes after a terminal one", async () => {
    const updates = await open();
    await updates.next();
    const next = updates.next();
    const before = reads.length;
    await changed("pi_1", { payment_intent: { id: "pi_1", status: "succeeded" } });
    expect((await next).value).toEqual({ data: { intent: { status: "succeeded" } } });
    expect((await updates.next()).done).toBe(true);
    expect(reads.length).toBe(before);
  });

  it("stops at once when the client leaves while it waits, and reads nothing after", async () => {
    const updates = await open();
    await updates.next();
    const waiting = updates.next();
    await updates.return();
    expect((await waiting).done).toBe(true);
    const before = reads.length;
    await changed("pi_1");
    expect(reads.length).toBe(before);
  });

  it("closes the connection at the first change after its token expired", async () => {
    let valid = true;
    const updates = await open(() => valid);
    await updates.next();
    const next = updates.next();
    valid = false;
    await changed("pi_1");
    expect((await next).done).toBe(true);
    expect(closeExpired).toHaveBeenCalledOnce();
  });
});
