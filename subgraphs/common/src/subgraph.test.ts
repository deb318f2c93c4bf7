import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import { callerHeaders } from "./caller";
import { hostSubgraph } from "./subgraph";

const internalToken = "test-internal-token";
const greeter = hostSubgraph(
  {
    name: "greeter",
    typeDefs: parse(`
      extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
      type Query { hello(name: String!): String }
    `),
    resolvers: { Query: { hello: (_: unknown, { name }: { name: string }) => `hello ${name}` } },
    createContext: () => ({}),
  },
  {},
  internalToken,
);
const asService = callerHeaders({ type: "service", id: "edge", scopes: [] }, internalToken);

describe("the in-process hop", () => {
  it("validates a document as the standalone server does: an unknown field is refused, not skipped", async () => {
    const valid = await greeter.execute({ query: '{ hello(name: "Ana") }' }, asService);
    expect(valid).toEqual({ data: { hello: "hello Ana" } });
    const invalid = await greeter.execute({ query: '{ hello(name: "Ana") nothing }' }, asService);
    expect(invalid.data).toBeUndefined();
    expect(invalid.errors?.map((error) => error.message)).toEqual(['Cannot query field "nothing" on type "Query".']);
  });
});
