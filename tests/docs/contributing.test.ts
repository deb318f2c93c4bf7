import { readdirSync, readFileSync } from "node:fs";
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

  it("names every module file by one of the roles of its table", () => {
    const roles = modulesRoles(page);
    expect(roles.test("subgraphs/pos/src/modules/bills/bill.service.ts")).toBe(true);
    expect(roles.test("subgraphs/pos/src/modules/bills/bill.helpers.ts")).toBe(false);
    expect(roles.test("subgraphs/pos/src/modules/bills/bill-changes.ts")).toBe(false);
    const files = moduleFiles();
    expect(files.length).toBeGreaterThan(300);
    expect(files.filter((file) => !roles.test(file))).toEqual([]);
  });

  it("keeps rules out of the `.inputs.ts` files: zod schemas, their types and the field walkers that run them", () => {
    const inputs = moduleFiles().filter((file) => file.endsWith(".inputs.ts"));
    expect(inputs.length).toBeGreaterThan(15);
    expect(inputs.flatMap((file) => functionsOf(file).filter((name) => !inputParsers.includes(name)))).toEqual([]);
    expect(functionsOf("subgraphs/portal/src/modules/users/user.service.ts")).toContain("usesPassword");
  });

  it("is linked from the README", () => {
    expect(readFileSync(join(repositoryRoot, "README.md"), "utf8").includes("(CONTRIBUTING.md)")).toBe(true);
  });
});

/** The first cell of each row of "A module, whole" (`<module>.service.ts`, `workflows/<verb-noun>.ts`) as one pattern. */
function modulesRoles(page: string): RegExp {
  const section = page.slice(page.indexOf("## A module, whole"), page.indexOf("## Recipes"));
  const cells = [...section.matchAll(/^\| ([^|]+) \|/gm)].map((row) => row[1]!);
  const patterns = cells.flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((span) => span[1]!));
  const regex = patterns.map((pattern) =>
    pattern
      .split(/<[^>]+>|\*/)
      .map((part) => part.replace(/[.]/g, "\\."))
      .join("[^/]+"),
  );
  return new RegExp(`/(${regex.join("|")})$`);
}

function moduleFiles(): string[] {
  const files: string[] = [];
  for (const subgraph of ["payments", "portal", "pos"]) {
    const modules = join("subgraphs", subgraph, "src", "modules");
    for (const entry of readdirSync(join(repositoryRoot, modules), { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name).slice(repositoryRoot.length + 1);
      if (entry.isFile() && path.split("/").length > 5) files.push(path);
    }
  }
  return files;
}

/** The functions a file exports (declared, or an arrow assigned to a const), by name. */
function functionsOf(file: string): string[] {
  const source = readFileSync(join(repositoryRoot, file), "utf8");
  const declared = /^export (?:async )?function (\w+)|^export const (\w+) = (?:async )?\(/gm;
  return [...source.matchAll(declared)].map((match) => (match[1] ?? match[2])!);
}

/**
 * What an `.inputs.ts` may export besides schemas: the walkers that run each field's zod schema in the spec's order
 * (docs/decisions/foundation.md, "Module faces (issue 37)") and a schema builder.
 */
const inputParsers = ["parseCreateInput", "parseAmount", "parseSyncInput", "optionalText"];
