import { type AuditChange, auditOutboxRow, type Caller } from "@pos-cloud/common";
import type { PaymentRow, Tx } from "./payment.repository";

/** What is done to a POS payment, named as the spec's audit events name it. */
export type PaymentAuditEvent = "payment.created" | "payment.completed" | "payment.refunded";

/** A payment recorded offline says so on its record, with when it happened and when the platform received it. */
const offlineTimes = (payment: Pick<PaymentRow, "occurred_at" | "created_at">) => ({
  recorded_offline: true,
  occurred_at: payment.occurred_at.toISOString(),
  recorded_at: payment.created_at.toISOString(),
});

/**
 * The one place POS payments are put on record: the audit log is the portal's, in another database, so the record is
 * an `audit.recorded` outbox event written in the transaction of the change, which the portal appends to its log.
 * `actor` null: the platform itself (a gateway event completed the payment).
 */
export function auditPayment(
  tx: Tx,
  event: PaymentAuditEvent,
  actor: Caller | null,
  payment: Pick<
    PaymentRow,
    | "id"
    | "merchant_id"
    | "store_id"
    | "bill_id"
    | "amount"
    | "tip_amount"
    | "method_type"
    | "recorded_offline"
    | "occurred_at"
    | "created_at"
  >,
  at: Date,
  metadata: Record<string, unknown> = {},
) {
  const change: AuditChange = {
    event,
    actor,
    target: { type: "pos_payment", id: payment.id },
    place: { merchant_id: payment.merchant_id, store_id: payment.store_id },
    metadata: {
      bill_id: payment.bill_id,
      amount: payment.amount,
      ...(payment.tip_amount > 0 && { tip_amount: payment.tip_amount }),
      method_type: payment.method_type,
      ...(payment.recorded_offline && offlineTimes(payment)),
      ...metadata,
    },
  };
  return tx.outboxEvent.create({ data: auditOutboxRow(change, at) });
}
