import type { Page } from "../input";
import { readPage } from "../pages";

/** A message given up on as the console lists it: what it was and to whom, never its body (a login code). */
export interface UndeliverableMessageRow {
  id: string;
  kind: string;
  channel: string;
  recipient: string;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  given_up_at: Date | null;
}

/** The columns of `outgoing_messages` the list reads, for either subgraph's Prisma `select`: not the body. */
const undeliverableColumns = {
  id: true,
  kind: true,
  channel: true,
  recipient: true,
  attempts: true,
  last_error: true,
  created_at: true,
  given_up_at: true,
} as const;

/** Mails and SMS given up on (`failed`: every attempt made, none left), as `MessageUndeliverable` counts them. */
const undeliverable = { status: "failed" };

/** Either subgraph's `prisma.outgoingMessage`, as far as the reads below use it. */
interface OutgoingMessageRows {
  count(args: { where: typeof undeliverable }): Promise<number>;
  findMany(args: {
    where: typeof undeliverable;
    select: typeof undeliverableColumns;
    orderBy: ({ created_at: "desc" } | { id: "asc" })[];
    take: number;
    skip: number;
  }): Promise<UndeliverableMessageRow[]>;
}

/** The reads of a subgraph's `outgoing_messages` given up on, for its repository: never the body. */
export const undeliverableMessages = (rows: OutgoingMessageRows) => ({
  count: () => rows.count({ where: undeliverable }),
  /** Newest first. */
  page: (page: Page) =>
    readPage(page, {
      rows: (take) =>
        rows.findMany({
          where: undeliverable,
          select: undeliverableColumns,
          orderBy: [{ created_at: "desc" }, { id: "asc" }],
          take,
          skip: page.offset,
        }),
      total: () => rows.count({ where: undeliverable }),
    }),
});

/**
 * Enough of a recipient for an operator to recognise it, not to write to it: an e-mail address keeps its first
 * letter and its domain (`a***@example.com`), a phone number its last 4 digits (`***1234`).
 */
export function maskRecipient(channel: string, recipient: string): string {
  if (channel === "email") {
    const at = recipient.lastIndexOf("@");
    return at < 1 ? "***" : `${recipient[0]}***${recipient.slice(at)}`;
  }
  const digits = recipient.replace(/\D/g, "");
  return digits.length < 8 ? "***" : `***${digits.slice(-4)}`;
}

export const presentUndeliverableMessage = (row: UndeliverableMessageRow) => ({
  id: row.id,
  kind: row.kind,
  channel: row.channel,
  recipient: maskRecipient(row.channel, row.recipient),
  attempts: row.attempts,
  last_error: row.last_error,
  created_at: row.created_at,
  given_up_at: row.given_up_at,
});
