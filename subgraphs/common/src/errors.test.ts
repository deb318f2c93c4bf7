import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type ErrorCode, errorCodeOf, errorStatus, graphqlCode } from "./errors";

describe("error codes on REST and GraphQL", () => {
  const codes = Object.keys(errorStatus) as ErrorCode[];

  it("are listed in docs/errors.md as they are answered", () => {
    const table = readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8");
    const rows = [...table.matchAll(/^\| `(\w+)` \| (\d+) \| `(\w+)` \|$/gm)].map(([, rest, status, graphql]) => ({
      rest,
      status: Number(status),
      graphql,
    }));
    expect(rows).toEqual(codes.map((rest) => ({ rest, status: errorStatus[rest], graphql: graphqlCode(rest) })));
  });

  it("are spelled once on GraphQL, and read back in either spelling", () => {
    expect(new Set(codes.map(graphqlCode)).size).toBe(codes.length);
    for (const code of codes) {
      expect(graphqlCode(code)).toMatch(/^[A-Z_]+$/);
      expect(errorCodeOf(graphqlCode(code))).toBe(code);
      expect(errorCodeOf(code)).toBe(code);
    }
    expect(graphqlCode("unauthorized")).toBe("UNAUTHENTICATED");
    expect(errorCodeOf("GRAPHQL_VALIDATION_FAILED")).toBeUndefined();
  });
});
