import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import { expect, it } from "vitest";

// Code outside tests/ reaches the test support as the workspace package `@pos-cloud/test-support`, never by a relative
// path into tests/ (issue 37): a moved support file then breaks one import map, not fifty paths five levels deep.
const roots = ["apps", "bench", "prisma", "rest-compat", "schema", "sdks", "subgraphs"];
const skipped = /(^|\/)(node_modules|dist|generated)\//;
const relativeIntoTests = /from\s+["'](?:\.\.\/)+tests\/|import\(\s*["'](?:\.\.\/)+tests\//;

const sources = roots.flatMap((root) =>
  readdirSync(join(repositoryRoot, root), { recursive: true, encoding: "utf8" })
    .map((file) => `${root}/${file}`)
    .filter((file) => /\.(ts|tsx|mjs)$/.test(file) && !skipped.test(file)),
);

it("has no source file outside tests/ that imports tests/ by a relative path", () => {
  expect(sources.length).toBeGreaterThan(500);
  expect(relativeIntoTests.test(`import { clock } from "../../tests/support/clock";`)).toBe(true);
  expect(sources.filter((file) => relativeIntoTests.test(readFileSync(join(repositoryRoot, file), "utf8")))).toEqual(
    [],
  );
});
