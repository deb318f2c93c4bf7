import type { z } from "zod";

/*
 * Text that can reach a receipt printer. C0 and C1 control characters are printer commands (ESC/POS: ESC opens a
 * command, BEL and the cash-drawer kick among them) and the bidirectional overrides, embeddings and isolates
 * (U+202A-U+202E, U+2066-U+2069) reorder what a reader sees, so neither may be typed into such text. A newline and
 * a tab are kept: a receipt's header or footer has lines, and the renderer prints a tab as a space. A carriage
 * return is refused: on a printer it returns to the start of the line and prints over what is there.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its purpose
const unprintable = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
const unprintableAll = new RegExp(unprintable.source, "gu");

/** The constraint a refusal names in `details.constraint`. */
export const PRINTABLE_TEXT = "printable_text";

export const isPrintableText = (text: string) => !unprintable.test(text);

/** The text without the characters a printer would take as commands: for rows written before the rule. */
export const stripUnprintable = (text: string) => text.replace(unprintableAll, "");

/** Whether every string of a JSON value, key or value, is printable. */
function isPrintableJson(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === "string" && !isPrintableText(node)) return false;
    if (node === null || typeof node !== "object") continue;
    for (const [key, child] of Object.entries(node)) pending.push(key, child);
  }
  return true;
}

const refusal = (what: string) => ({
  message: `${what} may not hold control characters (other than newline and tab) or bidirectional overrides`,
  params: { constraint: PRINTABLE_TEXT },
});

/**
 * A string schema that also refuses what a printer would take as a command; `parseInput` reports it as
 * `printable_text`. For every free text a receipt, a tax invoice or a printer may show.
 */
export const printable = <T extends z.ZodType<string>>(schema: T) =>
  schema.refine(isPrintableText, refusal("this text"));

/** The same for a free-form JSON object whose strings may be printed (a store's receipt header and footer). */
export const printableJson = <T extends z.ZodType>(schema: T) => schema.refine(isPrintableJson, refusal("its text"));
