import { cardTransactionColumns, MalformedCsv, readCsv, settlementColumns, writeCsv } from "@pos-cloud/common";

/**
 * The acquirer's rules on the exchange's files (their columns: `card-settlement-files` in common, shared with the
 * merchants' side): merchants upload their day's card transactions, the acquirer answers with a settlement file.
 */

export const UPLOAD_COLUMNS = cardTransactionColumns.map((column) => column.header);
export const SETTLEMENT_COLUMNS = settlementColumns.map((column) => column.header);

/** The sandbox's merchant service charge: 3.24% of the day's card sales, rounded down to the yen. */
export const SANDBOX_FEE_BASIS_POINTS = 324;

/** The largest upload the acquirer takes. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** Where a merchant uploads a store's day, and where the acquirer puts its answer, under `/<merchant_id>/`. */
export const uploadPattern = /^\/(\d{1,12})\/upload\/card_transactions_(\d{1,12})_(\d{8})\.csv$/;
export const settlementName = (storeId: string, day: string) => `settlement_${storeId}_${day}.csv`;

export type TransactionStatus = "captured" | "refunded";

export interface UploadedTransaction {
  transaction_id: string;
  date: string;
  time: string;
  amount: number;
  approval_code: string;
  status: TransactionStatus;
}

export interface SettlementLine {
  merchant_id: string;
  date: string;
  transaction_count: number;
  gross_amount: number;
  fees: number;
  net_amount: number;
}

/** A file the acquirer refuses: the FTP upload is answered 550 with this message. */
export class RejectedFile extends Error {}

const fieldRules: Record<(typeof cardTransactionColumns)[number]["key"], RegExp> = {
  transaction_id: /^[A-Za-z0-9_-]{1,64}$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  time: /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/,
  amount: /^[1-9]\d{0,11}$/,
  approval_code: /^[A-Za-z0-9]{1,20}$/,
  status: /^(captured|refunded)$/,
};

function readUpload(text: string) {
  try {
    return readCsv(cardTransactionColumns, text);
  } catch (error) {
    throw error instanceof MalformedCsv ? new RejectedFile(error.message) : error;
  }
}

/** The rows of an upload; any line that breaks the format refuses the whole file, naming the line. */
export function parseUpload(text: string): UploadedTransaction[] {
  const seen = new Set<string>();
  return readUpload(text).map((row, index) => {
    const number = index + 2;
    for (const column of cardTransactionColumns)
      if (!fieldRules[column.key].test(row[column.key]))
        throw new RejectedFile(`line ${number}: ${column.header} is not valid`);
    const key = `${row.status}:${row.transaction_id}`;
    if (seen.has(key)) throw new RejectedFile(`line ${number}: transaction ${row.transaction_id} is listed twice`);
    seen.add(key);
    return { ...row, amount: Number(row.amount), status: row.status as TransactionStatus };
  });
}

/**
 * The sandbox acquirer's decision on one transaction: like the QR sandbox, an amount ending in 13 is declined (it is
 * left out of the settlement), so a merchant's reconciliation has a difference to find.
 */
export const isDeclined = (transaction: UploadedTransaction) => transaction.amount % 100 === 13;

/**
 * What the acquirer pays for an upload: the settled transactions, sales less refunds (gross), its fee on the sales
 * (rounded down; refunds do not give the fee back) and the rest (net).
 */
export function settle(
  merchantId: string,
  date: string,
  transactions: UploadedTransaction[],
  feeBasisPoints = SANDBOX_FEE_BASIS_POINTS,
): SettlementLine {
  const settled = transactions.filter((transaction) => !isDeclined(transaction));
  const sum = (status: TransactionStatus) =>
    settled.filter((transaction) => transaction.status === status).reduce((total, t) => total + t.amount, 0);
  const sales = sum("captured");
  const gross = sales - sum("refunded");
  const fees = Math.floor((sales * feeBasisPoints) / 10_000);
  return {
    merchant_id: merchantId,
    date,
    transaction_count: settled.length,
    gross_amount: gross,
    fees,
    net_amount: gross - fees,
  };
}

export const settlementCsv = (line: SettlementLine) => writeCsv(settlementColumns, [line]);

/** `20261124` as the acquirer's date, `2026-11-24`. */
export const isoDay = (day: string) => `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;
