import { writeCsv } from "@pos-cloud/common";

/*
 * The accounting export's file (the spec's File exchange, "Accounting export"): a store's closed business day as
 * the spec's JSON shape, and the same fields as CSV and XML. Pure, so the three formats come from one value.
 */

export const exportFormats = ["csv", "json", "xml"] as const;
export type ExportFormat = (typeof exportFormats)[number];

/** One payment (a positive amount) or refund (a negative one) the day's settlement counted. */
export interface ExportTransaction {
  transaction_id: string;
  /** payment or refund: a refund's receipt number is its payment's. */
  kind: "payment" | "refund";
  /** ISO 8601, UTC. */
  timestamp: string;
  amount: number;
  tax_amount: number;
  payment_method: string;
  receipt_number: string;
}

export interface SettlementExport {
  export_type: "daily_settlement";
  /** The business day, YYYY-MM-DD (Asia/Tokyo). */
  date: string;
  merchant_id: number;
  store_id: number;
  transactions: ExportTransaction[];
  /** gross_revenue and net_revenue are the settlement's gross and net (payments less refunds); tax in what was kept. */
  totals: { gross_revenue: number; tax_collected: number; net_revenue: number };
}

/** settlement_{merchant_id}_{store_id}_{YYYYMMDD}.{format} */
export const settlementFileName = (merchantId: number, storeId: number, date: string, format: ExportFormat) =>
  `settlement_${merchantId}_${storeId}_${date.replaceAll("-", "")}.${format}`;

const csvColumns = [
  { key: "record_type", header: "record_type" },
  { key: "export_type", header: "export_type" },
  { key: "date", header: "date" },
  { key: "merchant_id", header: "merchant_id" },
  { key: "store_id", header: "store_id" },
  { key: "transaction_id", header: "transaction_id" },
  { key: "kind", header: "kind" },
  { key: "timestamp", header: "timestamp" },
  { key: "amount", header: "amount" },
  { key: "tax_amount", header: "tax_amount" },
  { key: "payment_method", header: "payment_method" },
  { key: "receipt_number", header: "receipt_number" },
  { key: "gross_revenue", header: "gross_revenue" },
  { key: "tax_collected", header: "tax_collected" },
  { key: "net_revenue", header: "net_revenue" },
] as const;

type CsvRow = Record<(typeof csvColumns)[number]["key"], string | number>;

/** A row per transaction, then one `totals` row: every field of the JSON in one flat table. */
function settlementCsv(file: SettlementExport) {
  const head = {
    export_type: file.export_type,
    date: file.date,
    merchant_id: file.merchant_id,
    store_id: file.store_id,
  };
  const none = { gross_revenue: "", tax_collected: "", net_revenue: "" };
  const rows: CsvRow[] = file.transactions.map((t) => ({ record_type: "transaction", ...head, ...t, ...none }));
  rows.push({
    record_type: "totals",
    ...head,
    transaction_id: "",
    kind: "",
    timestamp: "",
    amount: "",
    tax_amount: "",
    payment_method: "",
    receipt_number: "",
    ...file.totals,
  });
  return writeCsv(csvColumns, rows);
}

const xmlEscape = (value: string | number) =>
  String(value).replace(/[<>&'"]/g, (c) => `&${{ "<": "lt", ">": "gt", "&": "amp", "'": "apos", '"': "quot" }[c]};`);

const elements = (fields: Record<string, string | number>, indent: string) =>
  Object.entries(fields).map(([name, value]) => `${indent}<${name}>${xmlEscape(value)}</${name}>`);

/** The JSON's tree as elements of the same names; a transaction is a `<transaction>` in `<transactions>`. */
function settlementXml(file: SettlementExport) {
  const { transactions, totals, ...head } = file;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    "<settlement>",
    ...elements(head, "  "),
    "  <transactions>",
    ...transactions.flatMap((t) => ["    <transaction>", ...elements({ ...t }, "      "), "    </transaction>"]),
    "  </transactions>",
    "  <totals>",
    ...elements(totals, "    "),
    "  </totals>",
    "</settlement>",
    "",
  ].join("\n");
}

export function renderSettlementFile(file: SettlementExport, format: ExportFormat): string {
  switch (format) {
    case "json":
      return `${JSON.stringify(file, null, 2)}\n`;
    case "csv":
      return settlementCsv(file);
    case "xml":
      return settlementXml(file);
  }
}
