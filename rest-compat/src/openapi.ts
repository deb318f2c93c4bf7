import { errorStatus } from "@pos-cloud/common";
import {
  buildSchema,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLNamedType,
  GraphQLNonNull,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  typeFromAST,
} from "graphql";
import {
  bodyFieldRequired,
  bodyFieldSchema,
  queryParameterSchema,
  validatorDefinitions,
  validatorSchema,
} from "./request-schemas";
import type { RestRequest, RestRoute, RouteDoc } from "./router";

type Schema = Record<string, unknown>;

const scalarSchemas: Record<string, Schema> = {
  ID: { type: "string" },
  String: { type: "string" },
  Int: { type: "integer" },
  Float: { type: "number" },
  Boolean: { type: "boolean" },
  DateTime: { type: "string", format: "date-time" },
  JSONObject: { type: "object" },
};

function nullable(schema: Schema): Schema {
  if (typeof schema.type === "string")
    return { ...schema, type: [schema.type, "null"], ...(schema.enum ? { enum: [...(schema.enum as []), null] } : {}) };
  return Object.keys(schema).length === 0 ? schema : { anyOf: [schema, { type: "null" }] };
}

/** A GraphQL type as JSON Schema: an output type through the operation's selection, an input type whole. */
function typeSchema(type: GraphQLOutputType | GraphQLInputType, shape: (named: GraphQLNamedType) => Schema): Schema {
  const inner = getNullableType(type);
  const schema = isListType(inner) ? { type: "array", items: typeSchema(inner.ofType, shape) } : shape(inner);
  return isNonNullType(type) ? schema : nullable(schema);
}

function leafSchema(named: GraphQLNamedType): Schema | undefined {
  if (isEnumType(named)) return { type: "string", enum: named.getValues().map((value) => value.name) };
  if (!isObjectType(named) && !isInputObjectType(named)) return { ...scalarSchemas[named.name] };
  return undefined;
}

/** A value a client sends in a path, query or body field: present or absent, never null. */
const sentSchema = (type: GraphQLInputType) => inputSchema(isNonNullType(type) ? type : new GraphQLNonNull(type));

/**
 * An input type as a request carries it: GraphQL checks it against the type, then the service against its validator
 * (`validatorSchema`), so the reference requires both; a type without a validator is GraphQL's alone.
 */
function inputSchema(type: GraphQLInputType): Schema {
  return typeSchema(type, (named) => {
    const leaf = leafSchema(named);
    if (leaf || !isInputObjectType(named)) return leaf ?? {};
    const graphql = inputObjectSchema(named);
    return checkedBoth(graphql, validatorSchema(named.name));
  });
}

/** What GraphQL's type and a service's validator both require; the type alone when the validator adds nothing. */
function checkedBoth(graphql: Schema, validator: Schema | undefined): Schema {
  if (!validator || Object.keys(validator).length === 0) return graphql;
  if (JSON.stringify(validator) === JSON.stringify(graphql)) return graphql;
  return { allOf: [graphql, validator] };
}

function inputObjectSchema(named: GraphQLInputObjectType): Schema {
  const fields = Object.values(named.getFields());
  return {
    type: "object",
    properties: Object.fromEntries(
      fields.map((field) => [field.name, { ...inputSchema(field.type), description: field.description ?? undefined }]),
    ),
    required: fields.filter((field) => isNonNullType(field.type)).map((field) => field.name),
    additionalProperties: false,
  };
}

/** The answer's schema: exactly the fields the operation selects, each typed by the schema. */
function selectionSchema(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  selection: SelectionSetNode | undefined,
  fragments: Map<string, FragmentDefinitionNode>,
  omitsNulls: boolean,
): Schema {
  return typeSchema(type, (named) => {
    const leaf = leafSchema(named);
    if (leaf || !isObjectType(named) || !selection) return leaf ?? {};
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    // A selection under @include or @skip may be left out of the answer, so it is not required.
    const collect = (set: SelectionSetNode, optional: boolean) => {
      for (const node of set.selections) {
        const maybe = optional || (node.directives ?? []).some((d) => ["include", "skip"].includes(d.name.value));
        if (node.kind === Kind.FRAGMENT_SPREAD) collect(fragments.get(node.name.value)!.selectionSet, maybe);
        else if (node.kind === Kind.INLINE_FRAGMENT) collect(node.selectionSet, maybe);
        else {
          const key = node.alias?.value ?? node.name.value;
          const field = node.name.value === "__typename" ? undefined : named.getFields()[node.name.value];
          if (!field) throw new Error(`${named.name}.${node.name.value} is not in the schema`);
          properties[key] = selectionSchema(schema, field.type, node.selectionSet, fragments, omitsNulls);
          if (field.description) properties[key].description = field.description;
          if (!maybe && (!omitsNulls || isNonNullType(field.type))) required.push(key);
        }
      }
    };
    collect(selection, false);
    return { type: "object", properties, required: [...new Set(required)], additionalProperties: false };
  });
}

/** A request that records what a route's `variables` function reads: query parameters, body fields, headers. */
function probe(route: RestRoute) {
  const read = { query: new Set<string>(), body: new Set<string>(), headers: new Set<string>(), raw: false };
  const fields: object = new Proxy(
    {},
    {
      get: (_, name) => {
        if (typeof name === "string") read.body.add(name);
        return undefined;
      },
    },
  );
  const pathNames = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  // Distinct integers, so that the variable a path parameter feeds is found by its value.
  const params = Object.fromEntries(pathNames.map((name, i) => [name, String(900_001 + i)]));
  const request = {
    method: route.method,
    target: route.path,
    params,
    query: {
      get: (name: string) => {
        read.query.add(name);
        return null;
      },
    },
    body: {
      get raw() {
        read.raw = true;
        return Buffer.alloc(0);
      },
      fields,
    },
    headers: new Proxy(
      { authorization: "HMAC-SHA256 probe:0:0" },
      {
        get: (target, name) => {
          if (typeof name === "string") read.headers.add(name);
          return Reflect.get(target, name);
        },
      },
    ),
    ip: "",
    caller: { type: "anonymous", scopes: [] },
  } as unknown as RestRequest;
  const variables = route.doc.variables(request);
  return { read, variables, fields, params };
}

interface Parsed {
  operation: OperationDefinitionNode;
  fragments: Map<string, FragmentDefinitionNode>;
  root: GraphQLField<unknown, unknown>;
}

function parsed(schema: GraphQLSchema, doc: RouteDoc): Parsed {
  const document = parse(doc.operation.toString());
  const operation = document.definitions.find((node) => node.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = new Map(
    document.definitions.flatMap((node) => (node.kind === Kind.FRAGMENT_DEFINITION ? [[node.name.value, node]] : [])),
  );
  const rootType = schema.getRootType(operation.operation)!;
  return { operation, fragments, root: rootType.getFields()[doc.field]! };
}

/** The type of a name the route reads: the operation's variable of that name, or a field of one of its inputs. */
function namedInputType(schema: GraphQLSchema, operation: OperationDefinitionNode, name: string) {
  const variableTypes = (operation.variableDefinitions ?? []).map(
    (definition) => [definition.variable.name.value, typeFromAST(schema, definition.type as never)] as const,
  );
  const variable = variableTypes.find(([variableName]) => variableName === name)?.[1];
  if (variable) return variable as GraphQLInputType;
  for (const [, type] of variableTypes) {
    const named = type && getNamedType(type);
    if (isInputObjectType(named) && named.getFields()[name]) return named.getFields()[name]!.type;
  }
  return undefined;
}

function withoutFields(object: Schema, names: string[]): Schema {
  const kept = (name: string) => !names.includes(name);
  const properties = Object.entries(object.properties as Record<string, Schema>).filter(([name]) => kept(name));
  return {
    ...object,
    properties: Object.fromEntries(properties),
    required: (object.required as string[]).filter(kept),
  };
}

function responseSchema(schema: GraphQLSchema, doc: RouteDoc, { operation, fragments, root }: Parsed): Schema {
  const field = operation.selectionSet.selections.find(
    (node) => node.kind === Kind.FIELD && (node.alias?.value ?? node.name.value) === doc.field,
  );
  const selection = field?.kind === Kind.FIELD ? field.selectionSet : undefined;
  const whole = selectionSchema(schema, root.type, selection, fragments, doc.omitsNulls ?? false);
  if (doc.page) return (whole.properties as Record<string, Schema>).nodes!;
  if (doc.omit) return withoutFields(whole, doc.omit);
  if (!doc.result) return whole;
  const properties = whole.properties as Record<string, Schema>;
  const result = properties[doc.result]!;
  const merged = Object.fromEntries((doc.merge ?? []).map((name) => [name, properties[name]!]));
  return {
    ...result,
    properties: { ...(result.properties as Schema), ...merged },
    required: [...(result.required as string[]), ...Object.keys(merged)],
  };
}

const header = (description: string, schema: Schema = { type: "string" }, required = false) => ({
  description,
  required,
  schema,
});
/**
 * Every `/v1` answer carries the rate-limit headers (the spec's rule for the gateway); a portal or POS answer only once
 * its caller was counted, so not a refused token's 401.
 */
const rateLimitHeaders = (scope: "Gateway" | "Api") =>
  Object.fromEntries(
    ["Limit", "Remaining", "Reset"].map((name) => [
      `X-RateLimit-${name}`,
      { $ref: `#/components/headers/${scope}-RateLimit-${name}` },
    ]),
  );
const scopeOf = (route: RestRoute) => (route.path.startsWith("/v1/") ? "Gateway" : "Api");
const errorStatuses = [...new Set(Object.values(errorStatus))].sort();

/**
 * A body whose fields feed the operation's arguments one by one: as for query parameters, GraphQL's type, then the
 * service's validator of the field, which says too which fields the body needs.
 */
function fieldsBodySchema(
  names: string[],
  typeOf: (name: string) => GraphQLInputType | undefined,
  field: string,
): Schema {
  const properties = names.map((name) => {
    const type = typeOf(name);
    return [name, checkedBoth(type ? sentSchema(type) : { type: "string" }, bodyFieldSchema(field, name))];
  });
  const required = names.filter((name) => bodyFieldRequired(field, name));
  return { type: "object", properties: Object.fromEntries(properties), ...(required.length > 0 ? { required } : {}) };
}

function operationOf(schema: GraphQLSchema, route: RestRoute) {
  const { doc } = route;
  const parsedOperation = parsed(schema, doc);
  const { operation, root } = parsedOperation;
  const { read, variables, fields, params } = probe(route);
  const typeOf = (name: string) => namedInputType(schema, operation, name);

  const parameters: Schema[] = Object.entries(params).map(([name, value]) => {
    const fed = Object.entries(variables).find(([, given]) => given === value || given === Number(value))?.[0];
    const type = fed ? typeOf(fed) : undefined;
    return { name, in: "path", required: true, schema: type ? sentSchema(type) : { type: "string" } };
  });
  for (const name of read.query) {
    const type = typeOf(name);
    const graphql = type ? sentSchema(type) : { type: "string" };
    // As for bodies: GraphQL's type, then the service's validator of the list's filters.
    parameters.push({ name, in: "query", schema: checkedBoth(graphql, queryParameterSchema(doc.field, name)) });
  }
  if (read.headers.has("idempotency-key"))
    parameters.push({ $ref: "#/components/parameters/Idempotency-Key" } as Schema);

  const bodyVariable = Object.entries(variables).find(([, value]) => value === fields)?.[0];
  const bodyType = bodyVariable ? typeOf(bodyVariable) : undefined;
  const bodySchema: Schema | undefined = bodyType
    ? sentSchema(bodyType)
    : read.body.size > 0
      ? fieldsBodySchema([...read.body], typeOf, doc.field)
      : read.raw
        ? { description: "The provider's notification, as its provider sends it." }
        : undefined;
  const bodyContent = bodySchema && {
    "application/json": { schema: bodySchema },
    ...(doc.oauth ? { "application/x-www-form-urlencoded": { schema: bodySchema } } : {}),
  };

  const successHeaders: Schema = rateLimitHeaders(scopeOf(route));
  if (doc.page) {
    successHeaders["X-Total-Count"] = { $ref: "#/components/headers/X-Total-Count" };
    successHeaders.Link = { $ref: "#/components/headers/Link" };
  }
  if (read.headers.has("idempotency-key"))
    successHeaders["Idempotent-Replayed"] = header("`true` when this is the stored answer of an earlier request.");
  const body = responseSchema(schema, doc, parsedOperation);
  const success =
    doc.status === 204
      ? { description: "Done; no content.", headers: successHeaders }
      : {
          description: "Success.",
          headers: successHeaders,
          content: doc.formats
            ? Object.fromEntries(doc.formats.map((type) => [type, { schema: { type: "string" } }]))
            : {
                "application/json": { schema: body },
                ...(doc.text ? { "text/plain": { schema: { type: "string" } } } : {}),
              },
        };
  const errors = Object.fromEntries(
    errorStatuses.map((status) => [
      String(status),
      {
        $ref: `#/components/responses/${doc.oauth && (status === 400 || status === 401) ? "OAuth" : scopeOf(route)}Error${status}`,
      },
    ]),
  );
  const description = root.description ?? "";
  return {
    operationId: operation.name?.value ?? doc.field,
    summary: (description.split(/(?<=\.)\s|\n/)[0] ?? doc.field).replace(/\.$/, ""),
    description,
    tags: [tagOf(route.path)],
    security: securityOf(route),
    parameters: parameters.length > 0 ? parameters : undefined,
    // A nullable input (a restriction of a new API key) may be left out: the request then has no body.
    requestBody: bodyContent
      ? { required: bodyVariable !== undefined && isNonNullType(bodyType), content: bodyContent }
      : undefined,
    responses: { [String(doc.status)]: success, ...errors },
  };
}

const tagOf = (path: string) => path.replace(/^\/(api\/)?v1\//, "").split("/")[0]!;

function securityOf(route: RestRoute) {
  if (route.auth === "hmac") return [{ hmac: [] }, { hmacBase64: [] }];
  if (route.auth === "payment_token") return [{ paymentToken: [] }, { paymentTokenBearer: [] }];
  if (route.doc.anonymous || route.path.startsWith("/v1/")) return [];
  return [{ humanJwt: [] }, { deviceJwt: [] }];
}

const errorSchema = (codes: string[]): Schema => ({
  type: "object",
  properties: {
    code: { type: "string", enum: codes },
    message: { type: "string" },
    details: {
      type: "object",
      description: "What was wrong: the field (`field`) and the rule it broke (`constraint`), and more where useful.",
      properties: { field: { type: "string" }, constraint: { type: "string" } },
    },
  },
  required: ["code", "message", "details"],
  additionalProperties: false,
});
const oauthErrorSchema: Schema = {
  type: "object",
  description: "An OAuth 2.0 refusal (RFC 6749 §5.2).",
  properties: { error: { type: "string" }, error_description: { type: "string" } },
  required: ["error", "error_description"],
  additionalProperties: false,
};

function errorResponses() {
  const responses: Record<string, Schema> = {};
  for (const status of errorStatuses) {
    const codes = Object.entries(errorStatus).flatMap(([code, of]) => (of === status ? [code] : []));
    const schema = errorSchema(codes);
    const headersOf = (scope: "Gateway" | "Api") => ({
      ...rateLimitHeaders(scope),
      ...(status === 429 ? { "Retry-After": header("Seconds until the limit resets.", { type: "integer" }) } : {}),
      ...(status === 405
        ? { Allow: header("The methods the path has (RFC 9110 §10.2.1).", { type: "string" }, true) }
        : {}),
    });
    for (const scope of ["Gateway", "Api"] as const)
      responses[`${scope}Error${status}`] = {
        description: codes.join(", "),
        headers: headersOf(scope),
        content: { "application/json": { schema } },
      };
    if (status === 400 || status === 401)
      responses[`OAuthError${status}`] = {
        description: `${codes.join(", ")}, or an OAuth 2.0 error`,
        headers: headersOf("Api"),
        content: { "application/json": { schema: { anyOf: [oauthErrorSchema, schema] } } },
      };
  }
  return responses;
}

const hmacDescription = (scheme: string) =>
  `\`Authorization: HMAC-SHA256 <client_id>:<timestamp>:<signature>\`, timestamp in Unix seconds within 300 s of the server's clock. ${scheme}`;

const components = {
  securitySchemes: {
    hmac: {
      type: "apiKey",
      in: "header",
      name: "Authorization",
      description: hmacDescription(
        'Preferred scheme: signature = hex(HMAC-SHA256(hex(SHA-256(secret)), METHOD + "\\n" + PATH + "\\n" + TIMESTAMP + "\\n" + hex(SHA-256(body)))).',
      ),
    },
    hmacBase64: {
      type: "apiKey",
      in: "header",
      name: "Authorization",
      description: hmacDescription(
        'Second scheme: signature = Base64(HMAC-SHA256(secret, METHOD + ":" + PATH + ":" + TIMESTAMP + ":" + body)).',
      ),
    },
    humanJwt: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description:
        "A user's access token (RS256), from login and MFA, PIN login or refresh; keys at /api/v1/jwks/human.",
    },
    deviceJwt: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description: "A terminal's access token (ES256), from /api/v1/auth/device/token; keys at /api/v1/jwks/device.",
    },
    paymentToken: {
      type: "apiKey",
      in: "query",
      name: "payment_token",
      description: "The intent's payment token: `payment_token` in the query (GET) or in the JSON body (POST).",
    },
    paymentTokenBearer: {
      type: "http",
      scheme: "bearer",
      description: "The intent's payment token as `Authorization: Bearer <payment_token>`.",
    },
  },
  parameters: {
    "Idempotency-Key": {
      name: "Idempotency-Key",
      in: "header",
      description: "Sent again with the same request, the stored answer comes back instead of a second change.",
      schema: { type: "string" },
    },
  },
  headers: {
    ...Object.fromEntries(
      (["Gateway", "Api"] as const).flatMap((scope) =>
        Object.entries({
          Limit: "Requests allowed in the window.",
          Remaining: "Requests left in the window.",
          Reset: "Unix time at which the window resets.",
        }).map(([name, description]) => [
          `${scope}-RateLimit-${name}`,
          header(description, { type: "integer" }, scope === "Gateway"),
        ]),
      ),
    ),
    "X-Total-Count": header("The number of rows in the whole list.", { type: "integer" }, true),
    Link: header('The next page while more follow: `<path?after=…>; rel="next"` (RFC 8288).'),
  },
  responses: errorResponses(),
};

/** The OpenAPI path of a route: `:id` becomes `{id}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

/**
 * The API reference (OpenAPI 3.1) of every REST route, derived from the routes themselves and the schema their
 * operations run against (the supergraph), so it cannot say other than what the code does.
 */
export function openApiDocument(routes: RestRoute[], supergraphSdl: string) {
  const schema = buildSchema(supergraphSdl);
  const paths: Record<string, Record<string, Schema>> = {};
  const operationIds = new Set<string>();
  for (const route of routes) {
    const operation = operationOf(schema, route);
    // One operation serving several routes (the two JWKS) is told apart by the path's last segment.
    if (operationIds.has(operation.operationId)) {
      const last = route.path.split("/").at(-1) ?? "";
      operation.operationId += last.charAt(0).toUpperCase() + last.slice(1);
    }
    operationIds.add(operation.operationId);
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  const tags = [...new Set(routes.map((route) => tagOf(route.path)))].sort().map((name) => ({
    name,
    description: `The \`${name}\` resources.`,
  }));
  return {
    openapi: "3.1.0",
    info: {
      title: "POS cloud platform REST API",
      version: "1",
      description:
        "Portal and POS resources live under `/api/v1` (terminals may leave the prefix out); the payment gateway under `/v1`. Every refusal is `{code, message, details}`. Generated from the REST routes and the GraphQL schema; `/graphql` serves the same operations.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/" }],
    tags,
    paths,
    components: { ...components, schemas: validatorDefinitions() },
  };
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
