import { describe, expect, it } from "vitest";
import { isMalformedId } from "./malformed-ids";

const coded = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("isMalformedId", () => {
  it("recognises text a uuid column refused, as Prisma, a raw query or the driver report it", () => {
    expect(isMalformedId(coded("P2007", 'Invalid input value: invalid input syntax for type uuid: "abc"'))).toBe(true);
    expect(isMalformedId(coded("P2010", 'Raw query failed. invalid input syntax for type uuid: "1"'))).toBe(true);
    const driver = coded("22P02", 'invalid input syntax for type uuid: "abc"');
    expect(isMalformedId(new Error("query failed", { cause: driver }))).toBe(true);
  });

  it("leaves other refused values alone: they are not an id that names nothing", () => {
    expect(isMalformedId(coded("22P02", 'invalid input syntax for type integer: "abc"'))).toBe(false);
    expect(isMalformedId(coded("P2002", "Unique constraint failed"))).toBe(false);
    expect(isMalformedId("invalid input syntax for type uuid")).toBe(false);
  });
});
