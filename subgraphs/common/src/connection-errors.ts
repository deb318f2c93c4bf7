/**
 * Node's socket errors, PostgreSQL's SQLSTATEs for a server going away (57P01 admin_shutdown, 57P02 crash_shutdown,
 * 57P03 cannot_connect_now; class 08 is connection_exception) and Prisma's codes for an unreachable or closed
 * database (P1001, P1002, P1008, P1017).
 */
const connectionCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "57P01",
  "57P02",
  "57P03",
  "P1001",
  "P1002",
  "P1008",
  "P1017",
]);

/** What node-postgres and Prisma say when they carry no code (or Prisma's P2010 wraps the driver's words). */
const connectionMessages =
  /Connection terminated|Server has closed the connection|Can't reach database server|timeout exceeded when trying to connect|Client has encountered a connection error/;

/**
 * The database (or the connection to it) is away, so the same request may succeed in a moment: the client is told
 * `service_unavailable`, not `internal_error`. Follows `cause`, as drivers wrap the socket's error.
 */
export function isConnectionLost(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (connectionCodes.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
    if (connectionMessages.test(current.message)) return true;
  }
  return false;
}
