// npm run compose            writes each subgraph's SDL and the supergraph into schema/
// npm run compose -- --check fails when those files are stale (CI runs this)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { composeServices } from "@apollo/composition";
import { printSubgraphSchema } from "@apollo/subgraph";
import { buildSchema } from "@pos-cloud/common";
import { payments } from "@pos-cloud/payments";
import { portal } from "@pos-cloud/portal";
import { pos } from "@pos-cloud/pos";
import { parse } from "graphql";

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
const files = new Map<string, string>([
  ...subgraphs.map(({ name, sdl }) => [`${name}.graphql`, `${sdl.trim()}\n`] as const),
  ["supergraph.graphql", `${composed.supergraphSdl.trim()}\n`],
]);
const check = process.argv.includes("--check");
const stale = [...files].filter(([file, content]) => {
  const path = join(schemaDir, file);
  let current = "";
  try {
    current = readFileSync(path, "utf8");
  } catch {}
  if (current === content) return false;
  if (!check) writeFileSync(path, content);
  return true;
});
if (check && stale.length > 0) {
  console.error(`stale: ${stale.map(([file]) => `schema/${file}`).join(", ")}; run npm run compose and commit`);
  process.exit(1);
}
console.log(check ? "schema/ is up to date" : `wrote ${stale.length} file(s) in schema/`);
