import { parse } from "csv-parse/sync";
import { toCsv } from "./csv";

/**
 * The card settlement exchange's two files (the spec's File exchange), defined once for both parties: the merchant
 * (POS) uploads its day's card transactions, the acquirer answers with a settlement file. CSV with a header line
 * and CRLF line ends. The sandbox acquirer imports these definitions and nothing else of the platform's rules.
 */
export const cardTransactionColumns = [
  { key: "transaction_id", header: "Transaction ID" },
  { key: "date", header: "Date" },
  { key: "time", header: "Time" },
  { key: "amount", header: "Amount" },
  { key: "approval_code", header: "Approval Code" },
  { key: "status", header: "Status" },
] as const;

export const settlementColumns = [
  { key: "merchant_id", header: "Merchant ID" },
  { key: "date", header: "Date" },
  { key: "transaction_count", header: "Transaction Count" },
  { key: "gross_amount", header: "Gross Amount" },
  { key: "fees", header: "Fees" },
  { key: "net_amount", header: "Net Amount" },
] as const;

type Columns = readonly { key: string; header: string }[];
export type CsvRecord<C extends Columns> = Record<C[number]["key"], string>;

/** A file that is not of its columns: the message names the line. */
export class MalformedCsv extends Error {}

/** Amounts go in as numbers, so a refund's -100 stays -100 where text cells are made spreadsheet-safe (`toCsv`). */
export const writeCsv = <C extends Columns>(columns: C, rows: Record<C[number]["key"], string | number>[]) =>
  toCsv(rows, { header: true, columns: [...columns], record_delimiter: "\r\n" });

/** The rows of a file whose first line is exactly the columns' headers, each row as many fields as there are columns. */
export function readCsv<C extends Columns>(columns: C, text: string): CsvRecord<C>[] {
  const headers = columns.map((column) => column.header).join(",");
  const noHeader = () => new MalformedCsv(`line 1 must be the header ${headers}`);
  let headed = false;
  try {
    const rows = parse(text, {
      columns: (found: string[]) => {
        if (found.join(",") !== headers) throw noHeader();
        headed = true;
        return columns.map((column) => column.key);
      },
      skip_empty_lines: true,
    }) as CsvRecord<C>[];
    if (!headed) throw noHeader();
    return rows;
  } catch (error) {
    if (error instanceof MalformedCsv) throw error;
    const line = (error as { lines?: number }).lines;
    const fields = (error as { record?: unknown[] }).record?.length;
    throw new MalformedCsv(
      fields === undefined
        ? `line ${line}: ${String((error as Error).message)}`
        : `line ${line}: ${columns.length} fields expected, ${fields} found`,
    );
  }
}
