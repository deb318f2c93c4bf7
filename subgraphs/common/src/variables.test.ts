import { buildSchema, graphql, type OperationDefinitionNode, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { refusedVariable } from "./variables";

const schema = buildSchema(`
  input ItemInput { name: String!, tags: [String!], note: String = "none" }
  enum Role { STAFF MANAGER }
  input UserInput { name: String, age: Int, items: [ItemInput!], role: Role, roles: [Role!] }
  scalar _Any
  type Query { ok: Boolean, _entities(representations: [_Any!]!): [Boolean] }
  type Mutation {
    login(login_id: String, password: String!): Boolean
    createUser(input: UserInput!): Boolean
    page(limit: Int = 20): Boolean
  }
`);

const login = "mutation($login_id: String, $password: String!) { login(login_id: $login_id, password: $password) }";
const createUser = "mutation($input: UserInput!) { createUser(input: $input) }";
const page = "mutation($limit: Int = 20) { page(limit: $limit) }";
const entities = "query($representations: [_Any!]!) { _entities(representations: $representations) }";

const refused = (source: string, variables: Record<string, unknown>) => {
  const operation = parse(source).definitions[0] as OperationDefinitionNode;
  const error = refusedVariable(schema, operation.variableDefinitions ?? [], variables);
  return error && { code: error.code, message: error.message, details: error.details };
};

/** Whether graphql-js itself refuses these variables: the check must agree with the coercion it stands in for. */
const graphqlRefuses = async (source: string, variableValues: Record<string, unknown>) =>
  ((await graphql({ schema, source, variableValues })).errors?.length ?? 0) > 0;

describe("refusedVariable", () => {
  it("names the path in the variables and what is wrong there, as GraphQL's coercion refuses it", async () => {
    const cases = [
      [login, { login_id: 5, password: "x" }, "login_id", "type", "login_id must be a string"],
      [login, { login_id: "x" }, "password", "required", "password is required"],
      [login, { password: null }, "password", "required", "password is required"],
      [login, { password: undefined }, "password", "required", "password is required"],
      [createUser, { input: { name: 5 } }, "input.name", "type", "input.name must be a string"],
      [createUser, { input: { age: "ten" } }, "input.age", "type", "input.age must be an integer"],
      [createUser, { input: { age: 1.5 } }, "input.age", "type", "input.age must be an integer"],
      [createUser, { input: { items: [{}] } }, "input.items.0.name", "required", "input.items.0.name is required"],
      [
        createUser,
        { input: { colour: "red" } },
        "input.colour",
        "unknown_field",
        "input.colour is not a field of this request",
      ],
      [createUser, { input: 7 }, "input", "type", "input must be an object"],
      [createUser, { input: [{ name: "a" }] }, "input", "type", "input must be an object"],
      [createUser, { input: { role: "KING" } }, "input.role", "enum", "input.role is not one of STAFF, MANAGER"],
      [createUser, { input: { role: 6 } }, "input.role", "enum", "input.role is not one of STAFF, MANAGER"],
      [createUser, { input: { roles: ["STAFF", "KING"] } }, "input.roles.1", "enum", expect.any(String)],
      // A field's own error comes before an unknown key of the object holding it, as in GraphQL's order.
      [createUser, { input: { items: [{ name: 5, colour: 1 }] } }, "input.items.0.name", "type", expect.any(String)],
      [page, { limit: "ten" }, "limit", "type", "limit must be an integer"],
    ] as const;
    for (const [source, variables, field, constraint, message] of cases) {
      expect({ variables, refused: refused(source, variables) }).toEqual({
        variables,
        refused: { code: "invalid_request", message, details: { field, constraint } },
      });
      expect(await graphqlRefuses(source, variables)).toBe(true);
    }
  });

  it("refuses a value that is no array where the type has a list, which GraphQL would take as a list of one", async () => {
    const cases = [
      [{ input: { items: { name: "a" } } }, "input.items"],
      [{ input: { items: [{ name: "a", tags: "x" }] } }, "input.items.0.tags"],
      [{ input: { roles: "STAFF" } }, "input.roles"],
    ] as const;
    for (const [variables, field] of cases) {
      expect(refused(createUser, variables)).toEqual({
        code: "invalid_request",
        message: `${field} must be an array`,
        details: { field, constraint: "type" },
      });
      expect(await graphqlRefuses(createUser, variables)).toBe(false);
    }
  });

  it("accepts what GraphQL accepts: defaults, absent optional values, nulls where allowed", async () => {
    const cases = [
      [createUser, { input: { name: "a", items: [{ name: "b", tags: null }], role: "STAFF", roles: [] } }],
      [createUser, { input: { name: null, age: undefined } }],
      [login, { password: "x" }],
      [page, {}],
      [page, { limit: null }],
    ] as const;
    for (const [source, variables] of cases) {
      expect(refused(source, variables)).toBeUndefined();
      expect(await graphqlRefuses(source, variables)).toBe(false);
    }
  });

  it("leaves the gateway's entity representations to GraphQL's own coercion", () => {
    expect(refused(entities, { representations: { __typename: "Store", id: 1 } })).toBeUndefined();
  });

  it("does not echo a key the client chose unless it is a field name", () => {
    const error = refused(createUser, { input: { 'x at "evil"': 1 } });
    expect(error).toEqual({
      code: "invalid_request",
      message: "input has a field that is not part of this request",
      details: { field: "input", constraint: "unknown_field" },
    });
  });
});
