import { buildSchema, graphql } from "graphql";
import { describe, expect, it } from "vitest";
import { toAppError } from "./graphql";

const schema = buildSchema(`
  input ItemInput { name: String! }
  enum Role { STAFF }
  input UserInput { name: String, age: Int, items: [ItemInput!], role: Role }
  type Query { ok: Boolean }
  type Mutation { login(login_id: String, password: String!): Boolean, createUser(input: UserInput!): Boolean }
`);

/** The REST error for GraphQL's own refusal of these variables, as Apollo Server reports it (BAD_USER_INPUT). */
async function refusal(source: string, variableValues: Record<string, unknown>) {
  const { errors } = await graphql({ schema, source, variableValues });
  const message = errors?.[0]?.message ?? "";
  const error = toAppError({ message, extensions: { code: "BAD_USER_INPUT" } });
  return { status: error.status, code: error.code, message: error.message, details: error.details };
}

const login = "mutation($login_id: String, $password: String!) { login(login_id: $login_id, password: $password) }";
const createUser = "mutation($input: UserInput!) { createUser(input: $input) }";

describe("toAppError for variables GraphQL refuses", () => {
  it("names the REST field and says what is wrong, without GraphQL's wording", async () => {
    const cases = [
      [login, { login_id: 5, password: "x" }, "login_id", "type", "login_id must be a string"],
      [login, { login_id: "x" }, "password", "required", "password is required"],
      [login, { password: null }, "password", "required", "password is required"],
      [login, { password: undefined }, "password", "required", "password is required"],
      [createUser, { input: { name: 5 } }, "name", "type", "name must be a string"],
      [createUser, { input: { age: "ten" } }, "age", "type", "age must be an integer"],
      [createUser, { input: { items: [{}] } }, "items.0.name", "required", "items.0.name is required"],
      [createUser, { input: { colour: "red" } }, "colour", "unknown_field", "colour is not a field of this request"],
      [createUser, { input: 7 }, "input", "type", "input has the wrong type or format"],
      [createUser, { input: { role: "KING" } }, "role", "enum", "role is not one of the values the API accepts"],
      [createUser, { input: { role: 6 } }, "role", "enum", "role is not one of the values the API accepts"],
    ] as const;
    for (const [source, variables, field, constraint, message] of cases) {
      const error = await refusal(source, variables);
      expect(error).toEqual({ status: 400, code: "invalid_request", message, details: { field, constraint } });
    }
  });

  it("says a value that is no list must be an array, as the edge refuses it instead of coercing", () => {
    const message = 'Variable "$input" got invalid value at "input.items[0].tags"; Expected a list.';
    const error = toAppError({ message, extensions: { code: "BAD_USER_INPUT" } });
    expect(error.message).toBe("items.0.tags must be an array");
    expect(error.details).toEqual({ field: "items.0.tags", constraint: "type" });
  });

  it("does not echo what a client put in a key", async () => {
    const error = await refusal(createUser, { input: { 'x at "evil"': 1 } });
    expect(error.message).not.toContain("evil");
    expect(error.message).not.toMatch(/Variable|\$input|UserInput/);
  });
});
