import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";

// A page of docs names real files and identifiers; a rename that leaves the page behind fails its test.

const tracked = execFileSync("git", ["ls-files"], { cwd: repositoryRoot, encoding: "utf8" })
  .split("\n")
  .filter(Boolean);
const fileNames = new Set(tracked.map((path) => basename(path)));
/**
 * Where an identifier must occur: the tracked code, schemas, SQL and configuration, never the docs nor the tests of
 * docs (their made-up names would vouch for themselves).
 */
const sourceText = tracked
  .filter((path) => /\.(ts|tsx|mts|mjs|cjs|graphql|prisma|sql|ya?ml|json)$/.test(path) && !path.endsWith("-lock.json"))
  .filter((path) => !path.startsWith("tests/docs/") && existsSync(join(repositoryRoot, path)))
  .map((path) => readFileSync(join(repositoryRoot, path), "utf8"))
  .join("\n");
/** A plain identifier must occur as a whole word (`caller`, not the inside of `recaller`). */
const sourceWords = new Set(sourceText.split(/[^\w$]+/));
const scripts = Object.keys(JSON.parse(readFileSync(join(repositoryRoot, "package.json"), "utf8")).scripts);

/** Inline code spans, outside fenced blocks (the diagrams). */
export const spans = (markdown: string) =>
  [...markdown.replace(/^```[\s\S]*?^```/gm, "").matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);

/**
 * The spans that name nothing in the repository: a path (it has a slash) that is no file or folder, a file name no
 * tracked file has, an identifier no source file holds, an `npm run` script package.json lacks. Placeholders
 * (`<module>`), globs, URL paths and other snippets (a space, `=`, a call) are not names and are left alone.
 */
export function unknownNames(markdown: string): string[] {
  return spans(markdown).filter((span) => {
    const script = /^npm run ([\w:-]+)/.exec(span);
    if (script) return !scripts.includes(script[1]!);
    if (/[\s<>*…(){}=",]/.test(span) || span.startsWith("/")) return false;
    if (span.includes("/")) return !existsSync(join(repositoryRoot, span));
    if (/^[\w.-]+\.(ts|tsx|graphql|md|json|cjs|mjs|ya?ml|prisma|sql|css)$/.test(span)) return !fileNames.has(span);
    return /^\w+$/.test(span) ? !sourceWords.has(span) : !sourceText.includes(span);
  });
}
