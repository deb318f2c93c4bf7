type Fields = Record<string, unknown>;

function write(level: "info" | "warn" | "error", message: string, fields: Fields = {}) {
  const entries = Object.entries(fields).map(([key, value]) =>
    value instanceof Error ? [key, value.stack ?? value.message] : [key, value],
  );
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...Object.fromEntries(entries) });
  (level === "info" ? process.stdout : process.stderr).write(`${line}\n`);
}

/** One JSON line per event on stdout (info) or stderr (warn, error). */
export const logger = {
  info: (message: string, fields?: Fields) => write("info", message, fields),
  warn: (message: string, fields?: Fields) => write("warn", message, fields),
  error: (message: string, fields?: Fields) => write("error", message, fields),
};
