// npm run lint:openapi: writes the API reference the edge serves to the file named by the argument (a temporary file),
// for `redocly lint`; the document itself is never committed, so it cannot go stale.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import { restRoutes } from "./index";
import { openApiDocument } from "./openapi";

const [file] = process.argv.slice(2);
if (!file) {
  console.error("usage: tsx rest-compat/src/print-openapi.ts <file>");
  process.exit(1);
}
const supergraph = readFileSync(join(repositoryRoot, "schema", "supergraph.graphql"), "utf8");
writeFileSync(file, JSON.stringify(openApiDocument(restRoutes, supergraph), null, 2));
