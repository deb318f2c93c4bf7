import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import { describe, expect, it } from "vitest";
import { spans, unknownNames } from "../support/doc-names";

// CONTRIBUTING.md's recipes name real files and identifiers; a rename that leaves the page behind fails here.

describe("CONTRIBUTING.md", () => {
  const page = readFileSync(join(repositoryRoot, "CONTRIBUTING.md"), "utf8");

  it("names only files, identifiers and scripts that exist", () => {
    expect(spans(page).length).toBeGreaterThan(100);
    expect(unknownNames(page)).toEqual([]);
  });

  it("catches a made-up name of each kind", () => {
    const madeUp = "`subgraphs/pos/src/modules/bills/bill.jobs.ts` `tips.machine.ts` `billTipsMachine` `npm run tips`";
    expect(unknownNames(madeUp)).toEqual([
      "subgraphs/pos/src/modules/bills/bill.jobs.ts",
      "tips.machine.ts",
      "billTipsMachine",
      "npm run tips",
    ]);
  });

  it("is linked from the README", () => {
    expect(readFileSync(join(repositoryRoot, "README.md"), "utf8").includes("(CONTRIBUTING.md)")).toBe(true);
  });
});
