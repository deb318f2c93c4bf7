import type { ApolloServerPlugin } from "@apollo/server";
import {
  GraphQLError,
  type GraphQLInputType,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  typeFromAST,
} from "graphql";

/** The path, in GraphQL's notation (`input.items[0].tags`), of the first value that is no array where a list is. */
function nonListPath(type: GraphQLInputType, value: unknown, path: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (isNonNullType(type)) return nonListPath(type.ofType, value, path);
  if (isListType(type)) {
    if (!Array.isArray(value)) return path;
    for (const [index, item] of value.entries()) {
      const found = nonListPath(type.ofType, item, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isInputObjectType(type) || typeof value !== "object" || Array.isArray(value)) return undefined;
  const fields = type.getFields();
  for (const [name, child] of Object.entries(value)) {
    const field = fields[name];
    const found = field && nonListPath(field.type, child, `${path}.${name}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Variables are JSON, and JSON has arrays: a variable value that is not an array where the type is a list is refused
 * as GraphQL refuses any other value of the wrong type, instead of GraphQL's coercion to a list of one. A REST body
 * that sends `"qr_mpm"` for `payment_method_types` is a 400 naming the field, as it was before the schema typed it.
 */
export const listVariables: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async didResolveOperation({ request, operation, schema }) {
        for (const definition of operation?.variableDefinitions ?? []) {
          const name = definition.variable.name.value;
          const type = typeFromAST(schema, definition.type);
          const path = type && isInputType(type) ? nonListPath(type, request.variables?.[name], name) : undefined;
          if (path === undefined) continue;
          throw new GraphQLError(`Variable "$${name}" got invalid value at "${path}"; Expected a list.`, {
            extensions: { code: "BAD_USER_INPUT", http: { status: 400 } },
          });
        }
      },
    };
  },
};
