import { invalidField } from "./errors";

/**
 * The path (`input.name`, `items.0.item_name`) of the first string, value or key, that PostgreSQL cannot store:
 * one holding a NUL character or a lone UTF-16 surrogate. Undefined when every string is clean.
 */
export function unstorableTextPath(value: unknown, path = ""): string | undefined {
  if (typeof value === "string") return value.includes("\u0000") || !value.isWellFormed() ? path : undefined;
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    const found = unstorableTextPath(key, childPath) ?? unstorableTextPath(child, childPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Refuses a request whose text cannot be stored, naming the field, before anything acts on it. */
export function assertStorableText(value: unknown, path = ""): void {
  const field = unstorableTextPath(value, path);
  if (field !== undefined)
    throw invalidField(field || "body", "text", `${field || "the body"} contains a NUL character or invalid Unicode`);
}
