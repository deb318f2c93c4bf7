import type { AccountingExportRow, DeliveryRow } from "./accounting-export.repository";

/** A merchant's export settings: never the secret, only which kind it is. */
export function presentSettings(row: AccountingExportRow) {
  const { secret: _, ...shown } = row;
  return shown;
}

/** A delivery without its file's content (the file is on the merchant's server). */
export function presentDelivery(row: DeliveryRow) {
  const { content: _, business_date, ...shown } = row;
  return { ...shown, date: business_date };
}
