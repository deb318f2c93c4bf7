import { invalidField } from "./errors";
import { type Page, type PageArgs, parsePage } from "./input";

/** A list as GraphQL's `<Entity>Page` types present it, so a table can show "1-20 of 400". */
export interface ListPage<T> {
  nodes: T[];
  total_count: number;
  page_info: { has_next_page: boolean; end_cursor: string | null };
}

/** Where a list ordered by time resumes: the creation time and id of the last row a page showed. */
export interface Cursor {
  created_at: Date;
  id: string;
}

/** A page of a list ordered by time: `after` (a page's `end_cursor`) and then `offset` rows are skipped. */
export type CursorPage = Page & { after?: Cursor };

const invalidCursor = () => invalidField("after", "cursor", "after must be the end_cursor of a page of this list");

/** Opaque to clients: they pass back what a page gave them, and the encoding may change. */
const encodeCursor = ({ created_at, id }: Cursor) =>
  Buffer.from(JSON.stringify([created_at.toISOString(), id])).toString("base64url");

/** A list's `after` argument: absent is the list's start, anything but a page's `end_cursor` a 400 on `after`. */
export function parseCursor(after: string | null | undefined): Cursor | undefined {
  if (after == null) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(after, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw invalidCursor();
  const [time, id] = parsed;
  const created_at = typeof time === "string" ? new Date(time) : undefined;
  if (!created_at || Number.isNaN(created_at.getTime()) || typeof id !== "string" || id === "") throw invalidCursor();
  return { created_at, id };
}

export const parseCursorPage = ({ after, ...page }: PageArgs & { after?: string | null }): CursorPage => ({
  ...parsePage(page),
  after: parseCursor(after),
});

/** The rows after a cursor, as a Prisma `where`, in a list ordered by `created_at` descending, then `id`. */
function afterCursor(cursor: Cursor | undefined, idOrder: "asc" | "desc") {
  if (!cursor) return {};
  const nextId = idOrder === "asc" ? { gt: cursor.id } : { lt: cursor.id };
  return { OR: [{ created_at: { lt: cursor.created_at } }, { created_at: cursor.created_at, id: nextId }] };
}

interface PageReads<T, Where> {
  /** The page's rows: `take` of them from `offset`, after `where` joins the list's own filter. */
  rows: (take: number, where: Where) => Promise<T[]>;
  /** The list's size with the same filters and scope, without the page. */
  total: () => Promise<number>;
}

/**
 * One page and the list's total. The rows are read with one more than the page holds: that row only tells whether
 * another page follows, which the total cannot tell after a cursor.
 */
function assemble<T>(
  limit: number,
  [rows, total_count]: [T[], number],
  endCursor: (last: T) => string | null,
): ListPage<T> {
  const nodes = rows.slice(0, limit);
  const last = nodes.at(-1);
  return {
    nodes,
    total_count,
    page_info: { has_next_page: rows.length > limit, end_cursor: last === undefined ? null : endCursor(last) },
  };
}

/** A page of a list ordered by something other than time: `offset` only, no cursor. */
export const readPage = async <T>(page: Page, read: PageReads<T, undefined>) =>
  assemble(page.limit, await Promise.all([read.rows(page.limit + 1, undefined), read.total()]), () => null);

/**
 * A page of a list ordered by `created_at` descending, then `id` in `idOrder`: `rows` gets the cursor's condition
 * as a Prisma `where`, and the page ends with a cursor to continue from.
 */
export const readPageByTime = async <T extends Cursor>(
  page: CursorPage,
  idOrder: "asc" | "desc",
  read: PageReads<T, ReturnType<typeof afterCursor>>,
) =>
  assemble(
    page.limit,
    await Promise.all([read.rows(page.limit + 1, afterCursor(page.after, idOrder)), read.total()]),
    encodeCursor,
  );

export const mapPage = <T, U>(page: ListPage<T>, present: (row: T) => U): ListPage<U> => ({
  ...page,
  nodes: page.nodes.map(present),
});
