import { notFound } from "@pos-cloud/common";
import type { Totals } from "../../money";
import { orderMachine } from "./order.machine";
import { lockOrder, type OrderRepository, type Tx } from "./order.repository";

/** What bills do to their orders, inside the bill's own transaction. */
export function orderBilling(orders: OrderRepository) {
  return {
    /** Within a bill's transaction: the order locked, which must be open to be billed. */
    async lockForBilling(tx: Tx, id: string) {
      const order = await lockOrder(tx, id);
      if (!order) throw notFound("order");
      orderMachine.transition(order.status, "bill");
      return order;
    },
    /** Within a bill's transaction: the order is billed, its tax and total those of the bill. */
    markBilled: (tx: Tx, id: string, billId: string, totals: Totals) =>
      orders.update(tx, id, { status: orderMachine.transition("open", "bill"), bill_id: billId, ...totals }),
    /** Within a cancelled bill's transaction: its orders are open again, without tax, to be changed or billed anew. */
    reopenOfBill: (tx: Tx, billId: string) =>
      orders.reopenOfBill(tx, billId, orderMachine.fromStates("reopen"), orderMachine.target("reopen").to),
    /** Within the transaction that paid a bill in full: its orders are completed. */
    completeOfBill: (tx: Tx, billId: string, at: Date) =>
      orders.moveOfBill(tx, billId, orderMachine.fromStates("complete"), {
        status: orderMachine.target("complete").to,
        completed_at: at,
      }),
    /** Within a combine's transaction: the source bills' orders now belong to the combined bill. */
    rebill: (tx: Tx, fromBillIds: string[], toBillId: string) => orders.rebill(tx, fromBillIds, toBillId),
    itemsOfBill: (tx: Tx, billId: string) => orders.itemsOfBill(tx, billId),
  };
}
