import type { ApolloServerPlugin } from "@apollo/server";
import {
  coerceInputValue,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  isScalarType,
  typeFromAST,
  type VariableDefinitionNode,
} from "graphql";
import { type AppError, asGraphQLError, invalidField } from "./errors";

type Path = readonly (string | number)[];

/** What a value of a built-in or shared scalar must be, in words a client reads without knowing GraphQL's types. */
const scalarWords: Record<string, string> = {
  String: "a string",
  ID: "a string",
  Int: "an integer",
  Float: "a number",
  Boolean: "true or false",
  JSONObject: "an object",
  DateTime: "a date and time (RFC 3339)",
};

/**
 * Federation's entity representations (`_entities(representations: [_Any!]!)`): the gateway builds them, never a
 * client, and `_Any` takes any value: walking them (400 per hierarchy read) only repeated GraphQL's own coercion.
 */
const isRepresentations = (type: GraphQLInputType) => getNamedType(type).name === "_Any";

const withoutNonNull = (type: GraphQLInputType) => (isNonNullType(type) ? type.ofType : type);

/** The first place where a list type holds a value that is not an array (GraphQL would make it a list of one). */
function nonListPath(type: GraphQLInputType, value: unknown, path: Path): Path | undefined {
  if (value === null || value === undefined) return undefined;
  const nullable = withoutNonNull(type);
  if (isListType(nullable)) {
    if (!Array.isArray(value)) return path;
    for (const [index, item] of value.entries()) {
      const found = nonListPath(nullable.ofType, item, [...path, index]);
      if (found) return found;
    }
    return undefined;
  }
  if (!isInputObjectType(nullable) || typeof value !== "object" || Array.isArray(value)) return undefined;
  const fields = nullable.getFields();
  for (const [name, child] of Object.entries(value)) {
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    const found = field && nonListPath(field.type, child, [...path, name]);
    if (found) return found;
  }
  return undefined;
}

/** The type a path of coerceInputValue's (field names and list indexes) leads to inside a value of `type`. */
function typeAt(type: GraphQLInputType, path: Path): GraphQLInputType {
  let current = withoutNonNull(type);
  for (const key of path) {
    if (isListType(current)) current = withoutNonNull(current.ofType);
    else if (isInputObjectType(current)) current = withoutNonNull(current.getFields()[key]!.type);
  }
  return current;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A client's own key is named back only when it is a GraphQL name, so no text the client chose is echoed. */
const isName = (key: string) => /^[_A-Za-z][_0-9A-Za-z]*$/.test(key);

const required = (field: string) => invalidField(field, "required", `${field} is required`);

/**
 * What is wrong with the first value coerceInputValue refused, at `path` inside variable `name`. GraphQL reports a
 * missing or unknown input field on the object that holds it, so those are found by comparing the object with its
 * type, in the order coerceInputValue checks them (missing fields in definition order, then unknown keys).
 */
function refusal(name: string, type: GraphQLInputType, path: Path, value: unknown): AppError {
  const field = [name, ...path].join(".");
  if (value === null || value === undefined) return required(field);
  const expected = typeAt(type, path);
  if (isInputObjectType(expected) && isObject(value)) {
    const fields = expected.getFields();
    const missing = Object.values(fields).find(
      (definition) =>
        isNonNullType(definition.type) && definition.defaultValue === undefined && value[definition.name] === undefined,
    );
    if (missing) return required(`${field}.${missing.name}`);
    const unknown = Object.keys(value).find((key) => !Object.hasOwn(fields, key));
    if (unknown !== undefined) {
      return isName(unknown)
        ? invalidField(`${field}.${unknown}`, "unknown_field", `${field}.${unknown} is not a field of this request`)
        : invalidField(field, "unknown_field", `${field} has a field that is not part of this request`);
    }
  }
  if (isEnumType(expected)) {
    const values = expected.getValues().map((enumValue) => enumValue.name);
    return invalidField(field, "enum", `${field} is not one of ${values.join(", ")}`);
  }
  if (isInputObjectType(expected)) return invalidField(field, "type", `${field} must be an object`);
  const words = isScalarType(expected) ? scalarWords[expected.name] : undefined;
  return invalidField(field, "type", words ? `${field} must be ${words}` : `${field} has the wrong type or format`);
}

/**
 * The first variable GraphQL would refuse, as the spec's 400 `invalid_request` naming the field by its path in the
 * request's variables (`input.status`, `input.items.0.name`) with `details.constraint` `required`, `type`, `enum` or
 * `unknown_field`; undefined when every variable coerces. graphql-js's own refusal says the path only inside its
 * message; this runs its coercion (coerceInputValue) and takes the path it reports. A value that is no array where
 * the type has a list is refused too: variables are JSON, which has arrays, so `"qr_mpm"` for a list is a mistake
 * GraphQL would hide by making it a list of one.
 */
export function refusedVariable(
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
  variables: Readonly<Record<string, unknown>>,
): AppError | undefined {
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    // A variable of an unknown or output type fails validation before this runs.
    if (!type || !isInputType(type) || isRepresentations(type)) continue;
    if (!Object.hasOwn(variables, name)) {
      if (definition.defaultValue === undefined && isNonNullType(type)) return required(name);
      continue;
    }
    const value = variables[name];
    const notList = nonListPath(type, value, []);
    if (notList) {
      const field = [name, ...notList].join(".");
      return invalidField(field, "type", `${field} must be an array`);
    }
    let refused: AppError | undefined;
    coerceInputValue(value, type, (path, invalid) => {
      refused ??= refusal(name, type, path, invalid);
    });
    if (refused) return refused;
  }
  return undefined;
}

/** Refuses an operation whose variables do not coerce (`refusedVariable`) before it runs, with HTTP 400. */
export const variableRefusals: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async didResolveOperation({ request, operation, schema }) {
        const refused = refusedVariable(schema, operation?.variableDefinitions ?? [], request.variables ?? {});
        if (refused) throw asGraphQLError(refused);
      },
    };
  },
};
