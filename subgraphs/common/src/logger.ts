import { randomUUID } from "node:crypto";
import { pino } from "pino";

type Fields = Record<string, unknown>;

/** The header that carries a request's id from the client through the edge to every subgraph hop. */
export const REQUEST_ID_HEADER = "x-request-id";

/** The client's id when it is short and plain (so it cannot forge log lines), else a new one. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === "string" && /^[\w.:-]{1,64}$/.test(header) ? header : randomUUID();
}

/** Field names whose values never reach a log line, at the top level or one object down. */
const secretFields = [
  "authorization",
  "cookie",
  "set-cookie",
  "password",
  "secret",
  "secrets",
  "token",
  "access_token",
  "refresh_token",
  "payment_token",
  "client_secret",
  "api_key",
  "x-internal-token",
];

const base = pino(
  {
    level: process.env.LOG_LEVEL ?? "info",
    base: undefined,
    messageKey: "message",
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: secretFields.flatMap((field) => [`["${field}"]`, `*["${field}"]`]), censor: "[redacted]" },
  },
  process.stdout,
);

function write(level: "info" | "warn" | "error", message: string, fields: Fields = {}) {
  const entries = Object.entries(fields).map(([key, value]) =>
    value instanceof Error ? [key, value.stack ?? value.message] : [key, value],
  );
  base[level](Object.fromEntries(entries), message);
}

/**
 * One JSON line per event on stdout (pino), secrets redacted. A line about one request names it with `request_id`
 * (the caller's `requestId`), passed as a field: no async context, whose promise hook costs every request on Node 20.
 */
export const logger = {
  info: (message: string, fields?: Fields) => write("info", message, fields),
  warn: (message: string, fields?: Fields) => write("warn", message, fields),
  error: (message: string, fields?: Fields) => write("error", message, fields),
};
