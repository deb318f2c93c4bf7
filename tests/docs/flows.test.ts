import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import { describe, expect, it } from "vitest";
import { unknownNames } from "../support/doc-names";

const flows = join(repositoryRoot, "docs", "flows");
const pages = readdirSync(flows).filter((name) => name.endsWith(".md"));

/** Every `path/with/a.file` a page names in backticks (a path has a slash and an extension). */
const filesNamedIn = (page: string) =>
  [...readFileSync(join(flows, page), "utf8").matchAll(/`([\w./-]+\/[\w.-]+\.\w+)`/g)].map((match) => match[1]!);

describe("docs/flows", () => {
  it("has a page for each flow, each listed in its README", () => {
    const readme = readFileSync(join(flows, "README.md"), "utf8");
    const flowPages = pages.filter((page) => page !== "README.md");
    expect(flowPages.sort()).toEqual(
      [
        "card-sale.md",
        "cash-sale.md",
        "partner-webhook.md",
        "qr-sale.md",
        "refund.md",
        "settlement-exchange.md",
        "terminal-subscription.md",
      ].sort(),
    );
    for (const page of flowPages) expect(readme).toContain(`(${page})`);
  });

  it.each(pages)("%s names only files that exist", (page) => {
    const named = filesNamedIn(page);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((file) => !existsSync(join(repositoryRoot, file)))).toEqual([]);
  });

  it.each(pages)("%s names only identifiers, events and scripts that exist", (page) => {
    expect(unknownNames(readFileSync(join(flows, page), "utf8"))).toEqual([]);
  });
});
