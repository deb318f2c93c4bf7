import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import { expect, it } from "vitest";

const docs = join(repositoryRoot, "docs");

// Code cites a decision by its title (`docs/decisions.md, "The replay rule"`): the index must list every one.
it("docs/decisions.md lists every section of docs/decisions/ under its file's heading", () => {
  const index = readFileSync(join(docs, "decisions.md"), "utf8");
  const unlisted = readdirSync(join(docs, "decisions")).flatMap((file) => {
    const part = index.split(`](decisions/${file})`)[1]?.split("\n## ")[0] ?? "";
    return readFileSync(join(docs, "decisions", file), "utf8")
      .split("\n")
      .filter((line) => line.startsWith("## "))
      .map((line) => line.slice(3).trim())
      .filter((title) => !part.includes(`\n- ${title}\n`))
      .map((title) => `${file}: ${title}`);
  });
  expect(unlisted).toEqual([]);
});
