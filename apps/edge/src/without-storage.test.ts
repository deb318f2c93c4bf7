import { spawnSync } from "node:child_process";
import { repositoryRoot } from "@pos-cloud/common";
import { describe, expect, it } from "vitest";

// A module resolution hook that refuses storage packages, so an import that would load them fails. `npm run deps`
// enforces the same boundary statically (.dependency-cruiser.cjs, edge-without-storage).
const refuseStorage = `export async function resolve(specifier, context, next) {
  if (/^(@electric-sql\\/pglite|pg|pglite-prisma-adapter|@prisma\\/)($|\\/)/.test(specifier)) {
    throw new Error("storage loaded: " + specifier);
  }
  return next(specifier, context);
}`;
const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(refuseStorage)}`)});`;

/** Imports `specifier` in a fresh Node process that refuses storage packages; its exit status and error output. */
function importWithoutStorage(specifier: string) {
  const child = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      `data:text/javascript,${encodeURIComponent(register)}`,
      "--input-type=module",
      "--eval",
      `await import(${JSON.stringify(specifier)});`,
    ],
    { cwd: repositoryRoot, encoding: "utf8", timeout: 20_000 },
  );
  return { status: child.status, stderr: child.stderr };
}

describe("the edge without storage", () => {
  it("imports the edge, the REST layer and @pos-cloud/common without loading PGlite, pg or Prisma", () => {
    for (const specifier of ["@pos-cloud/edge", "@pos-cloud/rest-compat", "@pos-cloud/common"]) {
      expect(importWithoutStorage(specifier), specifier).toMatchObject({ status: 0 });
    }
  });

  it("refuses storage where it is imported: the check itself works", () => {
    const result = importWithoutStorage("@pos-cloud/common/storage");
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/storage loaded: (pg|@prisma\/adapter-pg)\n/);
  });
});
