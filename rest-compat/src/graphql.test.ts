import { refusedVariable } from "@pos-cloud/common";
import { buildSchema, type OperationDefinitionNode, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { toAppError } from "./graphql";

const schema = buildSchema(`
  input AddressInput { city: String }
  input StoreInput { name: String!, address: AddressInput }
  type Query { ok: Boolean }
  type Mutation { login(login_id: String, password: String!): Boolean, createStore(input: StoreInput!): Boolean }
`);

/** The REST error for variables the edge refuses, from the GraphQL error the edge answers with. */
function restError(source: string, variables: Record<string, unknown>) {
  const operation = parse(source).definitions[0] as OperationDefinitionNode;
  const refused = refusedVariable(schema, operation.variableDefinitions ?? [], variables);
  if (!refused) throw new Error("the variables were accepted");
  const error = toAppError({ message: refused.message, extensions: { code: refused.code, details: refused.details } });
  return { status: error.status, code: error.code, message: error.message, details: error.details };
}

const login = "mutation($login_id: String, $password: String!) { login(login_id: $login_id, password: $password) }";
const createStore = "mutation($input: StoreInput!) { createStore(input: $input) }";

describe("toAppError", () => {
  it("names a field of the body as the client sent it: the body is the operation's input", () => {
    const cases = [
      [
        createStore,
        { input: { name: "a", address: { city: 5 } } },
        "address.city",
        "type",
        "address.city must be a string",
      ],
      [createStore, { input: {} }, "name", "required", "name is required"],
      [createStore, { input: { name: "a", colour: 1 } }, "colour", "unknown_field", expect.stringMatching(/^colour /)],
      [login, { login_id: 5, password: "x" }, "login_id", "type", "login_id must be a string"],
      [login, { login_id: "x" }, "password", "required", "password is required"],
      [
        createStore,
        { input: { name: "a", "not a name": 1 } },
        "body",
        "unknown_field",
        expect.stringMatching(/^body /),
      ],
    ] as const;
    for (const [source, variables, field, constraint, message] of cases) {
      expect(restError(source, variables)).toEqual({
        status: 400,
        code: "invalid_request",
        message,
        details: { field, constraint },
      });
    }
  });

  it("keeps a service's own error as it is", () => {
    const error = toAppError({
      message: "code is taken",
      extensions: { code: "conflict", details: { field: "code" } },
    });
    expect({ code: error.code, message: error.message, details: error.details }).toEqual({
      code: "conflict",
      message: "code is taken",
      details: { field: "code" },
    });
  });

  it("says GraphQL's own refusals without GraphQL's words", () => {
    const message = 'Variable "$input" got invalid value 5 at "input.name"; String cannot represent a non string value';
    const error = toAppError({ message, extensions: { code: "BAD_USER_INPUT" } });
    expect({ code: error.code, message: error.message }).toEqual({
      code: "invalid_request",
      message: "the request is not valid",
    });
    expect(toAppError({ message: "no", extensions: { code: "UNAUTHENTICATED" } }).code).toBe("unauthorized");
    expect(toAppError({ message: "boom", extensions: { code: "SOMETHING_ELSE" } }).code).toBe("internal_error");
  });
});
