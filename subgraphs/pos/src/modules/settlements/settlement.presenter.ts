import type { CardExchangeRow } from "./card-exchange.repository";
import type { CountedGroup, SettlementRow } from "./settlement.repository";

/** Every method is listed in a settlement's totals, with zeros when nothing was taken by it. */
export const settlementMethods = ["CASH", "CREDIT_CARD", "EMONEY", "QR"] as const;

export interface MethodTotal {
  payment_method: string;
  gross_amount: number;
  tip_amount: number;
  refund_amount: number;
  net_amount: number;
  payment_count: number;
  refund_count: number;
}

/** The totals of what a settlement counts: per method (payments gross, refunds, net, counts) and overall. */
export function summarize(groups: CountedGroup[]) {
  const totals: MethodTotal[] = settlementMethods.map((method) => {
    const of = (kind: CountedGroup["kind"]) =>
      groups.filter((group) => group.method_type === method && group.kind === kind);
    const sum = (list: CountedGroup[], field: "amount" | "tip_amount" | "count") =>
      list.reduce((total, g) => total + g[field], 0);
    const payments = of("payment");
    const refunds = of("refund");
    return {
      payment_method: method,
      gross_amount: sum(payments, "amount"),
      tip_amount: sum(payments, "tip_amount"),
      refund_amount: sum(refunds, "amount"),
      net_amount: sum(payments, "amount") - sum(refunds, "amount"),
      payment_count: sum(payments, "count"),
      refund_count: sum(refunds, "count"),
    };
  });
  const overall = (field: Exclude<keyof MethodTotal, "payment_method">) =>
    totals.reduce((total, method) => total + method[field], 0);
  return {
    totals,
    gross_amount: overall("gross_amount"),
    tip_amount: overall("tip_amount"),
    refund_amount: overall("refund_amount"),
    net_amount: overall("net_amount"),
    payment_count: overall("payment_count"),
    refund_count: overall("refund_count"),
    carried_over_count: groups.filter((group) => group.carried_over).reduce((total, g) => total + g.count, 0),
  };
}

export function presentExchange(row: CardExchangeRow | undefined) {
  if (!row) return null;
  return {
    status: row.status,
    attempts: row.attempts,
    last_error: row.last_error,
    upload_file: row.upload_file,
    upload_count: row.upload_count,
    upload_amount: row.upload_amount,
    uploaded_at: row.uploaded_at,
    report:
      row.report_file === null
        ? null
        : {
            file: row.report_file,
            content: row.report_content,
            merchant_id: row.report_merchant_id,
            date: row.report_date,
            transaction_count: row.report_transaction_count,
            gross_amount: row.report_gross_amount,
            fees: row.report_fees,
            net_amount: row.report_net_amount,
            received_at: row.received_at,
          },
    differences: (row.differences as unknown[] | null) ?? [],
    resolved_at: row.resolved_at,
    resolved_by: row.resolved_by,
    resolution_note: row.resolution_note,
    updated_at: row.updated_at,
  };
}

export function presentSettlement(row: SettlementRow, groups: CountedGroup[], exchange: CardExchangeRow | undefined) {
  const { business_date, window_start: _start, window_end: _end, ...rest } = row;
  return { ...rest, date: business_date, ...summarize(groups), card_exchange: presentExchange(exchange) };
}

export type PresentedSettlement = ReturnType<typeof presentSettlement>;
