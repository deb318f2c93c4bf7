import { invalidField } from "./errors";

/**
 * Business days of a store: a calendar date in the store's time zone. Stores carry no time zone yet, so every store
 * keeps Asia/Tokyo (UTC+9, the spec's business clock, as order numbers do); a settlement records the zone it used.
 */
export const STORE_TIME_ZONE = "Asia/Tokyo";

const dateFormats = new Map<string, Intl.DateTimeFormat>();
const format = (timeZone: string, options: Intl.DateTimeFormatOptions) => {
  const key = `${timeZone}:${JSON.stringify(options)}`;
  let found = dateFormats.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat("en-CA", { timeZone, hourCycle: "h23", ...options });
    dateFormats.set(key, found);
  }
  return found;
};

/** The business date (YYYY-MM-DD) of a moment. */
export const businessDateOf = (at: Date, timeZone = STORE_TIME_ZONE) =>
  format(timeZone, { year: "numeric", month: "2-digit", day: "2-digit" }).format(at);

/** The local time of a moment, HH:MM:SS. */
export const localTimeOf = (at: Date, timeZone = STORE_TIME_ZONE) =>
  format(timeZone, { hour: "2-digit", minute: "2-digit", second: "2-digit" }).format(at);

/** Whether a string is a real calendar date written YYYY-MM-DD (2026-02-30 is not). */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const at = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === value;
}

/** The date `days` after (or before) a date. */
export const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The zone's offset from UTC at a moment, in milliseconds. */
function offsetAt(at: Date, timeZone: string): number {
  const parts = Object.fromEntries(
    format(timeZone, {
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  const local = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
  return local - Math.floor(at.getTime() / 1000) * 1000;
}

/** Local midnight of a date, as a moment. */
function midnight(date: string, timeZone: string): Date {
  const utc = Date.parse(`${date}T00:00:00Z`);
  return new Date(utc - offsetAt(new Date(utc - offsetAt(new Date(utc), timeZone)), timeZone));
}

/** A business day as a span of time: [start, end), local midnight to local midnight. */
export const dayWindow = (date: string, timeZone = STORE_TIME_ZONE) => ({
  start: midnight(date, timeZone),
  end: midnight(addDays(date, 1), timeZone),
});

/** The business day a read names, today by default; a day that has not begun is 400 `not_future`. */
export function dayToRead(date: string | undefined, now: Date, timeZone = STORE_TIME_ZONE): string {
  const today = businessDateOf(now, timeZone);
  if (date !== undefined && date > today)
    throw invalidField("date", "not_future", "a business day that has not begun has no payments");
  return date ?? today;
}
