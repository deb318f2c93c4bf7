import { type Options, stringify } from "csv-stringify/sync";

/**
 * What a spreadsheet may take for the start of a formula (OWASP, CSV injection): `=`, `+`, `-`, `@`, TAB, CR, and the
 * full-width `＝ ＋ － ＠` that some spreadsheets (Apple Numbers) normalise to them.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * A text cell a spreadsheet shows as text: one that could start a formula gets a leading `'` (OWASP's rule). Only text
 * cells: a number stays a number (an amount of -100 is -100), so columns the other side reads as numbers keep working.
 */
export const spreadsheetSafe = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);

/**
 * Every CSV the platform writes (the audit export, the card exchange's files, a store's day): csv-stringify with each
 * text cell made spreadsheet-safe, whoever the text came from (a user agent, a name, an approval code), and each
 * instant in ISO 8601 (csv-stringify's own default is epoch milliseconds, which no reader of an export expects).
 */
export const toCsv = (
  rows: Record<string, unknown>[],
  options: Pick<Options, "header" | "columns" | "record_delimiter" | "cast">,
) =>
  stringify(rows, {
    ...options,
    cast: { date: (instant) => instant.toISOString(), ...options.cast, string: spreadsheetSafe },
  });
