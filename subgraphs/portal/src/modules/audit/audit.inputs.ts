import { invalidField } from "@pos-cloud/common";
import { z } from "zod";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The longest range one export covers. */
export const EXPORT_MAX_DAYS = 31;

const text = z.string().min(1).max(200);

export const auditFilter = z
  .strictObject({
    event: text.regex(/^[a-z_]+(\.[a-z_]+|\.\*)?$/, "an event name (user.login) or a family (user.*)").optional(),
    actor: text.optional(),
    target: text.optional(),
    from: z.date().optional(),
    to: z.date().optional(),
  })
  .refine(({ from, to }) => !from || !to || from <= to, {
    path: ["from"],
    message: "from must not be after to",
    params: { constraint: "before_to" },
  });
export type AuditFilterInput = z.output<typeof auditFilter>;

/** An export's range: to defaults to now, from to the longest range before it; a longer one is refused. */
export function exportRange(filter: AuditFilterInput, now: Date): AuditFilterInput {
  const to = filter.to ?? now;
  const from = filter.from ?? new Date(to.getTime() - EXPORT_MAX_DAYS * DAY_MS);
  if (to.getTime() - from.getTime() > EXPORT_MAX_DAYS * DAY_MS)
    throw invalidField("from", `max_range_${EXPORT_MAX_DAYS}_days`, `an export covers at most ${EXPORT_MAX_DAYS} days`);
  return { ...filter, from, to };
}

/** A page's end_cursor: the seq of its last record, opaque to clients. */
export const encodeSeqCursor = (seq: bigint) => Buffer.from(`seq:${seq}`).toString("base64url");

export function parseSeqCursor(after: string | null | undefined): bigint | undefined {
  if (after == null) return undefined;
  const match = /^seq:(\d{1,19})$/.exec(Buffer.from(after, "base64url").toString("utf8"));
  if (!match) throw invalidField("after", "cursor", "after must be the end_cursor of a page of this list");
  return BigInt(match[1]!);
}
