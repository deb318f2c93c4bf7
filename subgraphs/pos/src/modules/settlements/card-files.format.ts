import {
  businessDateOf,
  cardTransactionColumns,
  localTimeOf,
  MalformedCsv,
  readCsv,
  settlementColumns,
  writeCsv,
} from "@pos-cloud/common";
import type { CardEntry } from "./card-exchange.repository";
import type { DayEntry } from "./settlement.repository";

/**
 * The card settlement exchange's files (the spec's File exchange), on the merchant's side: the day's card
 * transactions uploaded, the acquirer's settlement file read back (their columns: `card-settlement-files` in common).
 */

/** Where a store's day goes and where its answer comes from, in the merchant's folder at the acquirer. */
export function exchangePaths(merchantId: number, storeId: number, date: string) {
  const day = date.replaceAll("-", "");
  return {
    upload: `${merchantId}/upload/card_transactions_${storeId}_${day}.csv`,
    report: `${merchantId}/settlement/settlement_${storeId}_${day}.csv`,
  };
}

/**
 * The upload of a closed settlement's card transactions: a payment is `captured` on its completion, a refund
 * `refunded` (with its payment's approval code) on its success; times are the store's local time.
 */
export const cardTransactionsCsv = (entries: CardEntry[], timeZone: string) =>
  writeCsv(
    cardTransactionColumns,
    entries.map((entry) => ({
      transaction_id: entry.source_id,
      date: businessDateOf(entry.occurred_at, timeZone),
      time: localTimeOf(entry.occurred_at, timeZone),
      amount: entry.amount,
      approval_code: entry.approval_code ?? "",
      status: entry.kind === "payment" ? "captured" : "refunded",
    })),
  );

const dayColumns = [
  { key: "kind", header: "Kind" },
  { key: "id", header: "ID" },
  { key: "date", header: "Date" },
  { key: "time", header: "Time" },
  { key: "method", header: "Payment Method" },
  { key: "amount", header: "Amount" },
  { key: "tip", header: "Tip" },
  { key: "carried_over", header: "Carried Over" },
] as const;

/** A store's day for the merchant's books: each payment and refund it counts, at the store's local time. */
export const dayCsv = (entries: DayEntry[], timeZone: string) =>
  writeCsv(
    dayColumns,
    entries.map((entry) => ({
      kind: entry.kind,
      id: entry.source_id,
      date: businessDateOf(entry.occurred_at, timeZone),
      time: localTimeOf(entry.occurred_at, timeZone),
      method: entry.method_type,
      amount: entry.amount,
      tip: entry.tip_amount,
      carried_over: entry.carried_over ? "yes" : "no",
    })),
  );

/** What the settlement expects the acquirer to confirm: every card transaction, and sales less refunds. */
export const expectedOf = (entries: CardEntry[]) => ({
  transaction_count: entries.length,
  gross_amount: entries.reduce((sum, entry) => sum + (entry.kind === "payment" ? entry.amount : -entry.amount), 0),
});

export interface AcquirerReport {
  merchant_id: string;
  date: string;
  transaction_count: number;
  gross_amount: number;
  fees: number;
  net_amount: number;
}

/** A file the acquirer sent that is not a settlement file of the expected merchant and day. */
export class UnreadableReport extends Error {}

function readReport(text: string) {
  try {
    return readCsv(settlementColumns, text);
  } catch (error) {
    if (!(error instanceof MalformedCsv)) throw error;
    throw new UnreadableReport(`the acquirer's settlement file is not readable: ${error.message}`);
  }
}

/** The acquirer's settlement file: its header, then one line for the merchant's store and day. */
export function parseAcquirerReport(text: string, expect: { merchant_id: number; date: string }): AcquirerReport {
  const rows = readReport(text);
  if (rows.length !== 1 || !rows[0])
    throw new UnreadableReport("the acquirer's settlement file is not a header and one line");
  const { merchant_id, date, ...fields } = rows[0];
  const amounts = [fields.transaction_count, fields.gross_amount, fields.fees, fields.net_amount];
  if (amounts.some((amount) => !/^-?\d{1,15}$/.test(amount)))
    throw new UnreadableReport("the acquirer's settlement line does not hold four amounts");
  if (merchant_id !== String(expect.merchant_id) || date !== expect.date)
    throw new UnreadableReport(`the acquirer's file is for merchant ${merchant_id} on ${date}`);
  const [transaction_count, gross_amount, fees, net_amount] = amounts.map(Number) as [number, number, number, number];
  return { merchant_id, date, transaction_count, gross_amount, fees, net_amount };
}

/** Where the acquirer and the settlement disagree: the count of card transactions and their amount. */
export function differencesOf(expected: ReturnType<typeof expectedOf>, report: AcquirerReport) {
  return (["transaction_count", "gross_amount"] as const)
    .filter((name) => expected[name] !== report[name])
    .map((name) => ({ field: name, expected: expected[name], actual: report[name] }));
}
