// npm run compose            writes each subgraph's SDL, the supergraph and the public API (api.graphql) into schema/
// npm run compose -- --check fails when those files are stale (CI runs this)
// Both fail on a breaking change of the public API (the supergraph without its @inaccessible elements), compared with
// schema/supergraph.graphql at git HEAD (or at --base=<ref>, e.g. the branch a pull request merges into), that
// schema/breaking-changes.json does not declare.
// Both then run the codegen (schema/codegen.ts): resolver types and the typed operations (REST layer, edge, POS),
// written or checked.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { composeServices } from "@apollo/composition";
import { printSubgraphSchema } from "@apollo/subgraph";
import { buildSchema } from "@pos-cloud/common";
import { payments } from "@pos-cloud/payments";
import { portal } from "@pos-cloud/portal";
import { pos } from "@pos-cloud/pos";
import { lexicographicSortSchema, parse, printSchema } from "graphql";
import { apiSchemaOf, parseDeclarations, undeclaredBreakingChanges } from "./breaking-changes.ts";
import { codegenFailure, runCodegen } from "./codegen.ts";

/** Where the cluster wiring finds each subgraph unless configured otherwise. */
export const defaultSubgraphUrls = {
  portal: "http://127.0.0.1:4101/graphql",
  pos: "http://127.0.0.1:4102/graphql",
  payments: "http://127.0.0.1:4103/graphql",
};

const schemaDir = import.meta.dirname;
const subgraphs = [portal, pos, payments].map((definition) => ({
  name: definition.name,
  url: defaultSubgraphUrls[definition.name as keyof typeof defaultSubgraphUrls],
  sdl: printSubgraphSchema(buildSchema(definition as Parameters<typeof buildSchema>[0])),
}));
const composed = composeServices(subgraphs.map(({ name, url, sdl }) => ({ name, url, typeDefs: parse(sdl) })));
if (composed.errors) {
  for (const error of composed.errors) console.error(error.message);
  process.exit(1);
}
const apiSchema = lexicographicSortSchema(apiSchemaOf(composed.supergraphSdl));
const files = new Map<string, string>([
  ...subgraphs.map(({ name, sdl }) => [`${name}.graphql`, `${sdl.trim()}\n`] as const),
  ["supergraph.graphql", `${composed.supergraphSdl.trim()}\n`],
  // The public API on its own, for reviewers and for clients' code generators.
  ["api.graphql", `${printSchema(apiSchema).trim()}\n`],
]);
const readSchemaFile = (file: string) => {
  try {
    return readFileSync(join(schemaDir, file), "utf8");
  } catch {
    return "";
  }
};
const givenBase = process.argv.find((arg) => arg.startsWith("--base="))?.slice("--base=".length);
const base = givenBase ?? "HEAD";
const committed = committedSupergraph(base);
if (givenBase !== undefined && committed === undefined) {
  // A CI job that cannot see its base (a shallow clone) must not pass by comparing with nothing.
  console.error(`no schema/supergraph.graphql at git ${givenBase} to compare with`);
  process.exit(1);
}
// Without git history the last written supergraph is the best baseline there is; read it before it is replaced.
const baselineSdl = committed ?? readSchemaFile("supergraph.graphql");
const check = process.argv.includes("--check");
const stale = [...files].filter(([file, content]) => {
  if (readSchemaFile(file) === content) return false;
  if (!check) writeFileSync(join(schemaDir, file), content);
  return true;
});
const breaking = baselineSdl
  ? await undeclaredBreakingChanges(
      apiSchemaOf(baselineSdl),
      apiSchema,
      parseDeclarations(readFileSync(join(schemaDir, "breaking-changes.json"), "utf8")),
    )
  : [];
if (breaking.length > 0) {
  const since = committed === undefined ? "the last written schema/supergraph.graphql" : `git ${base}`;
  console.error(`breaking changes to the public API since ${since}, not declared in schema/breaking-changes.json:`);
  for (const { message, path } of breaking) console.error(`  ${message}${path ? ` (${path})` : ""}`);
  console.error("revert them, or declare each one there with why clients can cope:");
  console.error(
    JSON.stringify(
      breaking.map(({ message }) => ({ message, reason: "" })),
      null,
      2,
    ),
  );
}
if (check && stale.length > 0) {
  console.error(`stale: ${stale.map(([file]) => `schema/${file}`).join(", ")}; run npm run compose and commit`);
}
// The generated TypeScript follows the schema just written (or checked): an operation that no longer fits fails here.
let generated: string[] = [];
let codegenFailed = false;
try {
  generated = await runCodegen({ check });
} catch (error) {
  codegenFailed = true;
  console.error(`codegen failed:\n${codegenFailure(error)}`);
}
if (check && generated.length > 0) {
  console.error(`stale: ${generated.join(", ")}; run npm run compose (or npm run codegen) and commit`);
}
if (breaking.length > 0 || codegenFailed || (check && (stale.length > 0 || generated.length > 0))) process.exit(1);
console.log(
  check
    ? "schema/ and the generated code are up to date"
    : `wrote ${stale.length} file(s) in schema/ and ${generated.length} generated file(s)`,
);

/** schema/supergraph.graphql as committed at a git ref; undefined when git or the file at that ref is missing. */
function committedSupergraph(ref: string): string | undefined {
  try {
    return execFileSync("git", ["show", `${ref}:./supergraph.graphql`], {
      cwd: schemaDir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return undefined;
  }
}
