import { describe, expect, it } from "vitest";
import { AppError } from "./errors";
import { assertJsonDepth, assertStorableText, unstorableTextPath } from "./text";

describe("unstorableTextPath", () => {
  it("finds a NUL or a lone surrogate in nested values and keys", () => {
    expect(unstorableTextPath({ name: "ok", items: [{ item_name: "a\u0000b" }] })).toBe("items.0.item_name");
    expect(unstorableTextPath({ metadata: { "\ud800": 1 } })).toBe("metadata.\ud800");
    expect(unstorableTextPath("\udc00", "login_id")).toBe("login_id");
  });

  it("passes clean text, emoji (a valid surrogate pair) and non-strings", () => {
    expect(unstorableTextPath({ name: "店舗 🍣", amount: 1, list: [null, true] })).toBeUndefined();
  });
});

describe("assertStorableText", () => {
  it("throws a 400 naming the field", () => {
    let thrown: unknown;
    try {
      assertStorableText({ description: "x\u0000" }, "input");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).status).toBe(400);
    expect((thrown as AppError).details).toEqual({ field: "input.description", constraint: "text" });
  });
});

describe("assertJsonDepth", () => {
  const nested = (levels: number) => JSON.parse(`${"[".repeat(levels)}${"]".repeat(levels)}`);

  it("passes 64 levels and refuses 65 as max_depth, naming the field", () => {
    expect(() => assertJsonDepth(nested(64))).not.toThrow();
    expect(() => assertJsonDepth({ a: nested(64) }, "variables")).toThrow(
      expect.objectContaining({ details: { field: "variables", constraint: "max_depth" } }),
    );
  });

  it("measures 100,000 levels without exhausting the stack", () => {
    expect(() => assertJsonDepth(nested(100_000))).toThrow(AppError);
    expect(unstorableTextPath(JSON.parse(`${'{"a":'.repeat(100_000)}"\\u0000"${"}".repeat(100_000)}`))).toMatch(
      /^a(\.a)+$/,
    );
  });
});
