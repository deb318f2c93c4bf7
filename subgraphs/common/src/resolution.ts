import { z } from "zod";
import type { Caller } from "./caller";
import { AppError } from "./errors";
import { printable } from "./printable";

/*
 * A reconciliation difference closed by a person (a QR provider's, a card settlement's): when, by whom and what was
 * done, final once written (docs/decisions/console.md, "A difference is closed by a resolution").
 */

/** What was done about a difference, as a bookkeeper writes it beside a correction: 1 to 500 printable characters. */
export const resolutionNote = printable(z.string().trim().min(1).max(500));

/** A resolution as its row stores it: null while the difference is open. */
export interface Resolution {
  resolved_at: Date | null;
  resolved_by: string | null;
}

/** A resolution being written: when, who (`user:<id>`), and the note. */
export interface ResolutionWrite {
  resolved_at: Date;
  resolved_by: string;
  resolution_note: string;
}

/** The resolution a person writes now. */
export const resolutionBy = (caller: Caller, note: string, at: Date): ResolutionWrite => ({
  resolved_at: at,
  resolved_by: `user:${caller.id}`,
  resolution_note: note,
});

/** The refusal of a second resolution: it names the first, which stays. */
export const alreadyResolved = (what: string, { resolved_at, resolved_by }: Resolution) =>
  new AppError("invalid_state", `this ${what} was resolved by ${resolved_by} at ${resolved_at?.toISOString()}`, {
    resolved_at: resolved_at?.toISOString(),
    resolved_by,
  });
