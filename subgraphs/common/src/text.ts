import { invalidField } from "./errors";

/** How deep a request's JSON may nest: far beyond any input of the API, far below what a recursive walk survives. */
export const MAX_JSON_DEPTH = 64;

/**
 * Refuses JSON nested deeper than `MAX_JSON_DEPTH` (an array or object is one level). Iterative, so a body of
 * 100,000 levels (which `JSON.parse` builds without trouble) is measured without exhausting the stack.
 */
export function assertJsonDepth(value: unknown, field = "body"): void {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (node === null || typeof node !== "object") continue;
    if (depth >= MAX_JSON_DEPTH)
      throw invalidField(field, "max_depth", `${field} nests deeper than ${MAX_JSON_DEPTH} levels`);
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
}

const unstorable = (text: string) => text.includes("\u0000") || !text.isWellFormed();

/**
 * The path (`input.name`, `items.0.item_name`) of the first string, value or key, that PostgreSQL cannot store:
 * one holding a NUL character or a lone UTF-16 surrogate. Undefined when every string is clean. Iterative (depth
 * first, in document order), so no nesting can exhaust the stack.
 */
export function unstorableTextPath(value: unknown, path = ""): string | undefined {
  const pending: [unknown, string][] = [[value, path]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, at] = next;
    if (typeof node === "string") {
      if (unstorable(node)) return at;
      continue;
    }
    if (node === null || typeof node !== "object") continue;
    const entries = Object.entries(node);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      const childPath = at ? `${at}.${key}` : key;
      pending.push([child, childPath], [key, childPath]);
    }
  }
  return undefined;
}

/** Refuses a request whose text cannot be stored, naming the field, before anything acts on it. */
export function assertStorableText(value: unknown, path = ""): void {
  const field = unstorableTextPath(value, path);
  if (field !== undefined)
    throw invalidField(field || "body", "text", `${field || "the body"} contains a NUL character or invalid Unicode`);
}
