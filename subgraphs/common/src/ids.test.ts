import { decodeTime, isValid } from "ulid";
import { describe, expect, it } from "vitest";
import { derivedUlid, newUlid } from "./ids";

describe("newUlid", () => {
  it("encodes the given time and spreads its random part over the whole alphabet", () => {
    const ids = Array.from({ length: 2000 }, () => newUlid(1_700_000_000_000));
    expect(ids.every((id) => isValid(id) && decodeTime(id) === 1_700_000_000_000)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const seen = new Set(ids.flatMap((id) => [...id.slice(10)]));
    expect(seen.size).toBe(32);
  });
});

describe("derivedUlid", () => {
  it("is the same for the same time and seed, another for another seed, and sorts by its time", () => {
    const at = Date.UTC(2026, 10, 28);
    expect(derivedUlid(at, "evt/cl_1")).toBe(derivedUlid(at, "evt/cl_1"));
    expect(derivedUlid(at, "evt/cl_2")).not.toBe(derivedUlid(at, "evt/cl_1"));
    expect(derivedUlid(at, "evt/cl_1").slice(0, 10)).toBe(newUlid(at).slice(0, 10));
    expect(derivedUlid(at + 1, "a") > derivedUlid(at, "z")).toBe(true);
  });
});
