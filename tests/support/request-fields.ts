import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Caller } from "@pos-cloud/common";
import {
  buildSchema,
  type GraphQLInputType,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type OperationDefinitionNode,
  parse,
  typeFromAST,
} from "graphql";
import type { OperationResult, RestRequest, RestRoute } from "../../rest-compat/src/index";

/*
 * What each REST route reads from a request, found by running its handler against a recording executor (the
 * operation it sends and the variables it made) rather than by listing fields by hand: a route added tomorrow is
 * covered without anyone remembering to add it.
 */

export interface RouteFields {
  route: RestRoute;
  /** The path with every `:name` parameter as written. */
  path: string;
  params: string[];
  /** Query parameters the route passes on to its operation (or checks itself). */
  query: string[];
  /** Dotted paths of the body's string fields (a list's first element as `.0`). */
  body: string[];
  /** Why a part of the request has no field to test, when it has none. */
  reasons: string[];
}

const supergraph = () =>
  buildSchema(readFileSync(join(import.meta.dirname, "../../schema/supergraph.graphql"), "utf8"));

class Recorded extends Error {
  constructor(readonly sent: { query: string; variables: Record<string, unknown> }) {
    super("recorded");
  }
}

const anonymous: Caller = { type: "anonymous", scopes: [] };

/** Runs a route's handler on a made-up request: the operation and variables it would send, or what it threw. */
async function probe(route: RestRoute, params: string[], query: URLSearchParams, fields: unknown) {
  const request: RestRequest = {
    method: route.method,
    target: route.path,
    params: Object.fromEntries(params.map((name) => [name, "1"])),
    query,
    body: { raw: Buffer.from(JSON.stringify(fields)), fields },
    // A signed route reads the partner's key from the signature header; the signature itself is the edge's check.
    headers: route.auth === "hmac" ? { authorization: "HMAC-SHA256 probe:0:0" } : {},
    ip: "127.0.0.1",
    caller: anonymous,
  };
  try {
    await route.handle(request, async (text, variables): Promise<OperationResult> => {
      throw new Recorded({ query: text, variables });
    });
  } catch (error) {
    if (error instanceof Recorded) return { sent: error.sent };
    return { thrown: error };
  }
  return {};
}

/** Every string a value holds, with its dotted path. */
function strings(value: unknown, path: string[] = []): { path: string[]; text: string }[] {
  if (typeof value === "string") return [{ path, text: value }];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => strings(child, [...path, key]));
}

/** The dotted paths of the string leaves (String, ID, enums, custom scalars) of an input type. */
function stringLeaves(type: GraphQLInputType, path: string[] = [], seen = new Set<string>()): string[][] {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return stringLeaves(inner.ofType, [...path, "0"], seen);
  if (isInputObjectType(inner)) {
    if (seen.has(inner.name)) return [];
    const within = new Set(seen).add(inner.name);
    return Object.values(inner.getFields()).flatMap((field) => stringLeaves(field.type, [...path, field.name], within));
  }
  if (isScalarType(inner) && ["Int", "Float", "Boolean"].includes(inner.name)) return [];
  return [path];
}

const operationOf = (text: string) =>
  parse(text).definitions.find(
    (definition): definition is OperationDefinitionNode => definition.kind === "OperationDefinition",
  )!;

/** The fields of every route, each found by running the route. */
export async function routeFields(routes: RestRoute[]): Promise<RouteFields[]> {
  const schema = supergraph();
  const found: RouteFields[] = [];
  for (const route of routes) {
    const params = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
    const first = await probe(route, params, new URLSearchParams(), {});
    const reasons: string[] = [];
    if (!first.sent) {
      found.push({ route, path: route.path, params, query: [], body: [], reasons: ["sends no operation"] });
      continue;
    }
    const operation = operationOf(first.sent.query);
    const variables = (operation.variableDefinitions ?? []).map((definition) => ({
      name: definition.variable.name.value,
      type: typeFromAST(schema, definition.type) as GraphQLInputType,
    }));
    // A name the route might read: each variable's, and each field's of an input object variable.
    const candidates = new Set(
      variables.flatMap(({ name, type }) => {
        const named = getNamedType(type);
        return [name, ...(isInputObjectType(named) ? Object.keys(named.getFields()) : [])];
      }),
    );
    const marker = (name: string) => `probe:${name}`;
    const reads = async (query: URLSearchParams, fields: unknown, name: string) => {
      const result = await probe(route, params, query, fields);
      // A route that refuses the marker itself (an integer parameter) reads the name too.
      if (!result.sent) return result.thrown !== undefined;
      return strings(result.sent.variables).some(({ text }) => text === marker(name));
    };
    const query: string[] = [];
    if (route.method === "GET" || route.method === "DELETE") {
      for (const name of candidates)
        if (await reads(new URLSearchParams({ [name]: marker(name) }), {}, name)) query.push(name);
    }
    const body: string[] = [];
    // A body that is an operation's input variable: every string leaf of its type.
    const probeBody = { probe: true };
    const whole = (await probe(route, params, new URLSearchParams(), probeBody)).sent;
    for (const { name, type } of variables) {
      if (whole?.variables[name] === probeBody) body.push(...stringLeaves(type).map((path) => path.join(".")));
    }
    if (body.length === 0 && route.method !== "GET") {
      for (const name of candidates) {
        const variable = variables.find((v) => v.name === name);
        if (await reads(new URLSearchParams(), { [name]: marker(name) }, name)) {
          const leaves = variable ? stringLeaves(variable.type) : [[]];
          body.push(...leaves.map((path) => [name, ...path].join(".")));
        }
      }
    }
    if (query.length === 0 && (route.method === "GET" || route.method === "DELETE"))
      reasons.push("reads no query parameter");
    if (body.length === 0 && route.method !== "GET" && route.method !== "DELETE")
      reasons.push("passes no body field on as text (at most the raw bytes)");
    found.push({ route, path: route.path, params, query, body: [...new Set(body)], reasons });
  }
  return found;
}
