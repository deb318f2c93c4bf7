import { buildSchema, graphql } from "graphql";
import { describe, expect, it } from "vitest";
import { toAppError } from "./graphql";

const schema = buildSchema(`
  input ItemInput { name: String! }
  input UserInput { name: String, age: Int, items: [ItemInput!] }
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
    ] as const;
    for (const [source, variables, field, constraint, message] of cases) {
      const error = await refusal(source, variables);
      expect(error).toEqual({ status: 400, code: "invalid_request", message, details: { field, constraint } });
    }
  });

  it("does not echo what a client put in a key", async () => {
    const error = await refusal(createUser, { input: { 'x at "evil"': 1 } });
    expect(error.message).not.toContain("evil");
    expect(error.message).not.toMatch(/Variable|\$input|UserInput/);
  });
});
