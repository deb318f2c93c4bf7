import { stringify } from "csv-stringify/sync";
import { businessDateOf, localTimeOf } from "./business-day";
import type { CardEntry } from "./card-exchange.repository";
import type { DayEntry } from "./settlement.repository";

/**
 * The card settlement exchange's files (the spec's File exchange), on the merchant's side: the day's card
 * transactions uploaded, the acquirer's settlement file read back. CSV with a header line and CRLF line ends.
 */
const UPLOAD_COLUMNS = ["Transaction ID", "Date", "Time", "Amount", "Approval Code", "Status"];
const REPORT_COLUMNS = ["Merchant ID", "Date", "Transaction Count", "Gross Amount", "Fees", "Net Amount"];

/** Where a store's day goes and where its answer comes from, in the merchant's folder at the acquirer. */
export function exchangePaths(merchantId: number, storeId: number, date: string) {
  const day = date.replaceAll("-", "");
  return {
    upload: `${merchantId}/upload/card_transactions_${storeId}_${day}.csv`,
    report: `${merchantId}/settlement/settlement_${storeId}_${day}.csv`,
  };
}

/** A CSV file: the header line, then a line per row, each ended by CRLF; a field is quoted where it must be. */
const csvOf = (columns: string[], rows: (string | number)[][]) =>
  stringify([columns, ...rows], { record_delimiter: "\r\n" });

/**
 * The upload of a closed settlement's card transactions: a payment is `captured` on its completion, a refund
 * `refunded` (with its payment's approval code) on its success; times are the store's local time.
 */
export function cardTransactionsCsv(entries: CardEntry[], timeZone: string) {
  return csvOf(
    UPLOAD_COLUMNS,
    entries.map((entry) => [
      entry.source_id,
      businessDateOf(entry.occurred_at, timeZone),
      localTimeOf(entry.occurred_at, timeZone),
      entry.amount,
      entry.approval_code ?? "",
      entry.kind === "payment" ? "captured" : "refunded",
    ]),
  );
}

const DAY_COLUMNS = ["Kind", "ID", "Date", "Time", "Payment Method", "Amount", "Carried Over"];

/** A store's day for the merchant's books: each payment and refund it counts, at the store's local time. */
export function dayCsv(entries: DayEntry[], timeZone: string) {
  return csvOf(
    DAY_COLUMNS,
    entries.map((entry) => [
      entry.kind,
      entry.source_id,
      businessDateOf(entry.occurred_at, timeZone),
      localTimeOf(entry.occurred_at, timeZone),
      entry.method_type,
      entry.amount,
      entry.carried_over ? "yes" : "no",
    ]),
  );
}

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

/** The acquirer's settlement file: its header, then one line for the merchant's store and day. */
export function parseAcquirerReport(text: string, expect: { merchant_id: number; date: string }): AcquirerReport {
  const lines = text.replace(/\r\n/g, "\n").replace(/\n+$/, "").split("\n");
  if (lines[0] !== REPORT_COLUMNS.join(",") || lines.length !== 2)
    throw new UnreadableReport("the acquirer's settlement file is not a header and one line");
  const [merchant_id, date, ...amounts] = lines[1]!.split(",");
  if (amounts.length !== 4 || amounts.some((amount) => !/^-?\d{1,15}$/.test(amount)))
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
