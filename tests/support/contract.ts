// A vitest setup file (vitest.config.ts): every REST response a test receives from a platform it started is checked
// against the API reference (`/openapi.json`): the status is one the operation declares, the body matches its schema,
// the declared headers are there. A route whose answer drifts from the reference fails the test that called it; so
// does a request the reference calls invalid that the platform accepted (`checkRequest`).
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

/** The route a test's request went to, if any; a method the path does not have (a CORS preflight) has none. */
function routeOf(method: string, url: URL) {
  try {
    return router.match(method, url.pathname);
  } catch {
    return undefined;
  }
}

async function check(method: string, url: URL, response: Response): Promise<string | undefined> {
  const matched = routeOf(method, url);
  if (!matched) return undefined;
  const { document, ajv } = referenceOnce();
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
  const validate = validatorAt(schemaPath);
  const body: unknown = await response.clone().json();
  if (validate(body)) return undefined;
  return `${name} with a body that does not match #/${schemaPath}: ${ajv.errorsText(validate.errors)}`;
}

/** A compiled validator of the schema at a JSON pointer of the document, made once per process. */
function validatorAt(schemaPath: string): ValidateFunction {
  const { ajv, validators } = referenceOnce();
  let validate = validators.get(schemaPath);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi#/${schemaPath}` });
    validators.set(schemaPath, validate);
  }
  return validate;
}

/** A path or query value as its schema reads it: text that spells an integer, a number or a boolean is one. */
function typedValue(value: string, schema: Json | undefined): unknown {
  const types = [schema, ...((schema?.allOf as Json[] | undefined) ?? [])].flatMap((part) => [part?.type].flat());
  if ((types.includes("integer") || types.includes("number")) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (types.includes("boolean") && (value === "true" || value === "false")) return value === "true";
  return value;
}

/** The body a test sent, as the route reads it: JSON, or form fields; undefined when there is none. */
function sentBody(init: RequestInit | undefined): unknown {
  if (init?.body === undefined || init.body === null) return undefined;
  if (init.body instanceof URLSearchParams) return Object.fromEntries(init.body);
  if (typeof init.body !== "string") return undefined;
  try {
    return JSON.parse(init.body);
  } catch {
    return Object.fromEntries(new URLSearchParams(init.body));
  }
}

/**
 * What the reference says against a request the platform accepted: a request it calls invalid (a missing required
 * field, a value out of range, a field it does not know) that was not refused means the reference and the
 * validation differ. A test sends a deliberately bad request to see it refused with a 4xx, which this never flags.
 */
export function checkRequest(
  method: string,
  url: URL,
  init: RequestInit | undefined,
  status: number,
): string | undefined {
  if (status >= 400) return undefined;
  const matched = routeOf(method, url);
  if (!matched) return undefined;
  const path = openApiPath(matched.route.path);
  const at = pointer("paths", path, method.toLowerCase());
  const operation = (referenceOnce().document.paths as Record<string, Json>)[path]?.[method.toLowerCase()] as Json;
  const name = `${method} ${path} answered ${status} to a request its reference calls invalid:`;
  const parameters = (operation.parameters as Json[] | undefined) ?? [];
  for (const [i, parameter] of parameters.entries()) {
    if (parameter.$ref) continue;
    const given =
      parameter.in === "path"
        ? matched.params[parameter.name as string]
        : url.searchParams.get(parameter.name as string);
    if (given === null || given === undefined) continue;
    const validate = validatorAt(`${at}/${pointer("parameters", String(i), "schema")}`);
    if (!validate(typedValue(given, parameter.schema as Json)))
      return `${name} ${parameter.in} parameter ${parameter.name}: ${referenceOnce().ajv.errorsText(validate.errors)}`;
  }
  const requestBody = operation.requestBody as Json | undefined;
  const body = sentBody(init);
  if (!requestBody) return undefined;
  if (body === undefined) return requestBody.required ? `${name} its body is required` : undefined;
  const validate = validatorAt(`${at}/${pointer("requestBody", "content", "application/json", "schema")}`);
  if (validate(body)) return undefined;
  return `${name} body ${referenceOnce().ajv.errorsText(validate.errors)}`;
}

const original = globalThis.fetch;
const wrapped = Symbol.for("pos-cloud.contract");
if (!(original as unknown as Record<symbol, boolean>)[wrapped]) {
  const contractFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await original(input, init);
    const url = new URL(input instanceof Request ? input.url : input);
    const ours = [...platforms].some((platform) => url.href.startsWith(`${platform.baseUrl}/`));
    // Every path of the route table, the terminals' unprefixed ones (`/orders`) too; `check` leaves the rest alone.
    if (!ours) return response;
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    const violation =
      (input instanceof Request ? undefined : checkRequest(method, url, init, response.status)) ??
      (await check(method, url, response));
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
