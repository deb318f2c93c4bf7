import { readFileSync } from "node:fs";
import { join } from "node:path";
import { paymentIntentMachine } from "@pos-cloud/common";
import { type Database, openSubgraphDatabase } from "@pos-cloud/common/storage";
import { buildASTSchema, GraphQLEnumType, parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refundMachine } from "../subgraphs/payments/src/modules/refunds/refund.machine";
import { webhookDeliveryMachine } from "../subgraphs/payments/src/modules/webhooks/webhook-delivery.machine";
import { deviceMachine } from "../subgraphs/portal/src/modules/devices/device.machine";
import { billMachine } from "../subgraphs/pos/src/modules/bills/bill.machine";
import { orderMachine } from "../subgraphs/pos/src/modules/orders/order.machine";
import { paymentMachine } from "../subgraphs/pos/src/modules/payments/payment.machine";
import { posRefundMachine } from "../subgraphs/pos/src/modules/refunds/refund.machine";
import { settlementMachine } from "../subgraphs/pos/src/modules/settlements/settlement.machine";

const supergraph = buildASTSchema(parse(readFileSync(join(import.meta.dirname, "supergraph.graphql"), "utf8")), {
  assumeValidSDL: true,
});
const enumValues = (name: string) => {
  const type = supergraph.getType(name);
  if (!(type instanceof GraphQLEnumType)) throw new Error(`${name} is not an enum of the supergraph`);
  return type.getValues().map((value) => value.value as string);
};

/** Every aggregate's status field is an enum; a client sees exactly the states its machine has. */
describe("the GraphQL status enums are the machines' states", () => {
  it.each([
    ["PaymentIntentStatus", paymentIntentMachine.states],
    ["RefundStatus", refundMachine.states],
    ["PartnerWebhookDeliveryStatus", webhookDeliveryMachine.states],
    ["PosPaymentStatus", paymentMachine.states],
    ["BillStatus", billMachine.states],
    ["OrderStatus", orderMachine.states],
    ["PosRefundStatus", posRefundMachine.states],
    ["SettlementStatus", settlementMachine.states],
    ["DeviceStatus", deviceMachine.states],
  ] as const)("%s", (name, states) => {
    expect(enumValues(name).sort()).toEqual([...states].sort());
  });

  it("BillSplitStatus is the bill's states a split can reach: a split is never cancelled on its own", () => {
    expect(enumValues("BillSplitStatus").sort()).toEqual(billMachine.states.filter((s) => s !== "cancelled").sort());
  });
});

/** Every status column has a CHECK listing exactly its machine's states, so a write the machine did not decide fails. */
describe("the databases refuse a status outside the machines", () => {
  const databases: Partial<Record<"payments" | "pos", Database>> = {};
  beforeAll(async () => {
    databases.payments = await openSubgraphDatabase("payments", {});
    databases.pos = await openSubgraphDatabase("pos", {});
  }, 120_000);
  afterAll(async () => {
    await databases.payments?.close();
    await databases.pos?.close();
  });

  const checkedValues = async (subgraph: "payments" | "pos", table: string) => {
    const [row] = await databases[subgraph]!.query<{ definition: string }>(
      `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = $1`,
      [`${table}_status_check`],
    );
    return [...(row?.definition ?? "").matchAll(/'([^']+)'/g)].map((match) => match[1]);
  };

  it.each([
    ["payments", "payment_intents", paymentIntentMachine.states],
    ["payments", "refunds", refundMachine.states],
    ["payments", "partner_webhook_deliveries", webhookDeliveryMachine.states],
    ["pos", "payments", paymentMachine.states],
    ["pos", "bills", billMachine.states],
    ["pos", "bill_splits", billMachine.states.filter((s) => s !== "cancelled")],
    ["pos", "orders", orderMachine.states],
    ["pos", "pos_refunds", posRefundMachine.states],
    ["pos", "pos_settlements", settlementMachine.states],
  ] as const)("%s.%s", async (subgraph, table, states) => {
    expect((await checkedValues(subgraph, table)).sort()).toEqual([...states].sort());
  });

  it("refuses a raw UPDATE to an unknown status and keeps the row as it was", async () => {
    const db = databases.payments!;
    const id = "re_status_check";
    await db.query(
      `INSERT INTO refunds (id, payment_intent_id, client_partner_id, amount, currency, status, created_at, updated_at)
        VALUES ($1, 'pi_status_check', 1, 100, 'JPY', 'pending', now(), now())`,
      [id],
    );
    await expect(db.query("UPDATE refunds SET status = 'refunded_twice' WHERE id = $1", [id])).rejects.toMatchObject({
      code: "23514",
    });
    expect(await db.query("SELECT status FROM refunds WHERE id = $1", [id])).toEqual([{ status: "pending" }]);
  });
});
