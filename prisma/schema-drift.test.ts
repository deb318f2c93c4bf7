import { describe, expect, it } from "vitest";
import { pendingSchemaChanges } from "./schema-engine";

// A schema.prisma edited without `npm run db:diff` would run against tables that do not exist.
describe("each subgraph's migrations", () => {
  for (const subgraph of ["portal", "pos", "payments"]) {
    it(`${subgraph}: produce exactly what schema.prisma describes`, async () => {
      expect(await pendingSchemaChanges(subgraph)).toBe("");
    });
  }
});
