import { composeServices } from "@apollo/composition";
import { buildSchema, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { apiSchemaOf, parseDeclarations, undeclaredBreakingChanges } from "./breaking-changes.ts";

const baseline = /* GraphQL */ `
  type Query {
    store(id: ID!): Store
  }
  type Store {
    id: ID!
    name: String!
    status: StoreStatus!
  }
  enum StoreStatus {
    open
    closed
  }
`;
const messagesOf = async (current: string, declarations = "[]") =>
  (await undeclaredBreakingChanges(buildSchema(baseline), buildSchema(current), parseDeclarations(declarations))).map(
    ({ message }) => message,
  );

describe("undeclaredBreakingChanges", () => {
  it("reports a removed field", async () => {
    expect(await messagesOf(baseline.replace("name: String!", ""))).toEqual([
      "Field 'name' was removed from object type 'Store'",
    ]);
  });

  it("reports an argument added as required and an enum value removed", async () => {
    const current = baseline.replace("store(id: ID!)", "store(id: ID!, merchant_id: ID!)").replace("closed", "");
    expect(await messagesOf(current)).toEqual([
      "Argument 'merchant_id: ID!' added to field 'Query.store'",
      "Enum value 'closed' was removed from enum 'StoreStatus'",
    ]);
  });

  it("accepts a removed field that is declared with a reason", async () => {
    const declarations = JSON.stringify([
      { message: "Field 'name' was removed from object type 'Store'", reason: "no client has read it since v2" },
    ]);
    expect(await messagesOf(baseline.replace("name: String!", ""), declarations)).toEqual([]);
  });

  it("accepts an added optional field and an added optional argument", async () => {
    const current = baseline
      .replace("store(id: ID!)", "store(id: ID!, include_closed: Boolean)")
      .replace("name: String!", "name: String!\n    phone: String");
    expect(await messagesOf(current)).toEqual([]);
  });

  it("counts a field made @inaccessible in the supergraph as removed", async () => {
    const supergraphOf = (sdl: string) =>
      composeServices([
        {
          name: "portal",
          url: "http://127.0.0.1:4101/graphql",
          typeDefs: parse(
            `extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@inaccessible"]) ${sdl}`,
          ),
        },
      ]).supergraphSdl!;
    const changes = await undeclaredBreakingChanges(
      apiSchemaOf(supergraphOf(baseline)),
      apiSchemaOf(supergraphOf(baseline.replace("name: String!", "name: String! @inaccessible"))),
      [],
    );
    expect(changes.map(({ message }) => message)).toEqual(["Field 'name' was removed from object type 'Store'"]);
  });

  it("refuses a declaration without a reason", () => {
    expect(() => parseDeclarations(JSON.stringify([{ message: "Field 'name' was removed" }]))).toThrow();
  });
});
