import { decodeTime, isValid } from "ulid";
import { describe, expect, it } from "vitest";
import { newUlid } from "./ids";

describe("newUlid", () => {
  it("encodes the given time and spreads its random part over the whole alphabet", () => {
    const ids = Array.from({ length: 2000 }, () => newUlid(1_700_000_000_000));
    expect(ids.every((id) => isValid(id) && decodeTime(id) === 1_700_000_000_000)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const seen = new Set(ids.flatMap((id) => [...id.slice(10)]));
    expect(seen.size).toBe(32);
  });
});
