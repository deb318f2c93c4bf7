// A vitest setup file (vitest.config.ts): every REST response a test receives from a platform it started is checked
// against the API reference (`/openapi.json`): the status is one the operation declares, the body matches its schema,
// the declared headers are there. A route whose answer drifts from the reference fails the test that called it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import { createRouter, type OpenApiDocument, openApiDocument, openApiPath, restRoutes } from "@pos-cloud/rest-compat";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { afterEach } from "vitest";

/** The base URLs of the platforms the running tests started (`startTestPlatform` registers each). */
const platforms = new Set<{ baseUrl: string }>();
/** Violations seen since the last test ended, including those of requests the platform made to itself. */
const violations: string[] = [];

export function checkContractOf(platform: { baseUrl: string }) {
  platforms.add(platform);
  return () => platforms.delete(platform);
}

type Json = Record<string, unknown>;

/** Built once per test process, on the first response to check. */
let reference: { document: OpenApiDocument & Json; ajv: Ajv2020; validators: Map<string, ValidateFunction> };
const router = createRouter(restRoutes);

function referenceOnce() {
  if (reference) return reference;
  const supergraph = readFileSync(join(repositoryRoot, "schema", "supergraph.graphql"), "utf8");
  const document = openApiDocument(restRoutes, supergraph) as OpenApiDocument & Json;
  // Formats (date-time) are left to the services' own checks; strict off for OpenAPI's own keywords.
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema(document, "openapi");
  reference = { document, ajv, validators: new Map() };
  return reference;
}

const pointer = (...segments: string[]) => segments.map((s) => s.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

/** A `$ref` of the document resolved, with its JSON pointer (what a schema path in a message names). */
function resolve(document: Json, value: Json, at: string): { value: Json; at: string } {
  const ref = value.$ref;
  if (typeof ref !== "string") return { value, at };
  const path = ref.slice(2).split("/");
  const target = path.reduce<Json>(
    (node, segment) => node[segment.replaceAll("~1", "/").replaceAll("~0", "~")] as Json,
    document,
  );
  return { value: target, at: ref.slice(2) };
}

async function check(method: string, url: URL, response: Response): Promise<string | undefined> {
  let matched: ReturnType<typeof router.match>;
  try {
    matched = router.match(method, url.pathname);
  } catch {
    return undefined;
  }
  if (!matched) return undefined;
  const { document, ajv, validators } = referenceOnce();
  const path = openApiPath(matched.route.path);
  const name = `${method} ${path} answered ${response.status}`;
  const operation = (document.paths as Record<string, Json>)[path]?.[method.toLowerCase()] as Json | undefined;
  const declared = (operation?.responses as Json | undefined)?.[String(response.status)] as Json | undefined;
  if (!declared) return `${name}, a status its operation does not declare`;
  const { value: answer, at } = resolve(
    document,
    declared,
    pointer("paths", path, method.toLowerCase(), "responses", String(response.status)),
  );
  for (const [header, spec] of Object.entries((answer.headers as Json | undefined) ?? {})) {
    if (resolve(document, spec as Json, "").value.required && !response.headers.has(header))
      return `${name} without its declared header ${header}`;
  }
  const content = answer.content as Json | undefined;
  const type = response.headers.get("content-type")?.split(";")[0] ?? "";
  if (!content) return response.status === 204 || !type ? undefined : `${name} with a body it declares none of`;
  if (!content[type]) return `${name} as ${type}, not one of ${Object.keys(content).join(", ")}`;
  if (type !== "application/json") return undefined;
  const schemaPath = `${at}/${pointer("content", type, "schema")}`;
  let validate = validators.get(schemaPath);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi#/${schemaPath}` });
    validators.set(schemaPath, validate);
  }
  const body: unknown = await response.clone().json();
  if (validate(body)) return undefined;
  return `${name} with a body that does not match #/${schemaPath}: ${ajv.errorsText(validate.errors)}`;
}

const original = globalThis.fetch;
const wrapped = Symbol.for("pos-cloud.contract");
if (!(original as unknown as Record<symbol, boolean>)[wrapped]) {
  const contractFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await original(input, init);
    const url = new URL(input instanceof Request ? input.url : input);
    const ours = [...platforms].some((platform) => url.href.startsWith(`${platform.baseUrl}/`));
    if (!ours || !/^\/(api\/)?v1\//.test(url.pathname)) return response;
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    const violation = await check(method, url, response);
    if (violation) {
      violations.push(violation);
      throw new Error(`API reference violated: ${violation}`);
    }
    return response;
  };
  globalThis.fetch = Object.assign(contractFetch, { [wrapped]: true }) as typeof fetch;
}

// A violation in a request the platform made to itself (POS to the gateway) fails the test that caused it too.
// Outside vitest (the benchmarks use these helpers) there is no test to fail, and no runner to take the hook.
if (process.env.VITEST) {
  afterEach(() => {
    const seen = violations.splice(0);
    if (seen.length > 0) throw new Error(`API reference violated:\n${seen.join("\n")}`);
  });
}
