/** PostgreSQL's words (SQLSTATE 22P02) for text that is no UUID, as the driver, Prisma (P2007) or a raw query repeat them. */
const notAUuid = /invalid input syntax for type uuid/;

/**
 * A statement the database refused because a value bound to a uuid column is no UUID (`/terminals/abc`). Such a
 * value names no row, so it is a `not_found`, found here once for every query rather than checked before each
 * lookup. Follows `cause`, as drivers and Prisma wrap the database's error.
 */
export function isMalformedId(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (notAUuid.test(current.message)) return true;
  }
  return false;
}
