import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseInput } from "./input";

const schema = z.strictObject({
  splits: z.array(z.strictObject({ amount: z.number().int().positive() })).min(2),
  kind: z.enum(["amount", "items"]).optional(),
  email: z.email().optional(),
  code: z.string().max(4).optional(),
  note: z.string().min(1, "note must not be empty").optional(),
});

const refusal = (input: unknown) => {
  try {
    parseInput(schema, input);
  } catch (error) {
    return error as { code: string; message: string; details: { field: string; constraint: string } };
  }
  throw new Error("accepted");
};

describe("parseInput", () => {
  it.each([
    [{ splits: [{ amount: 1 }] }, "splits", "too_small", "splits must have at least 2 items"],
    [{}, "splits", "invalid_type", "splits is required"],
    [{ splits: "x" }, "splits", "invalid_type", "splits must be a list"],
    [
      { splits: [{ amount: 1.5 }, { amount: 1 }] },
      "splits.0.amount",
      "invalid_type",
      "splits.0.amount must be a whole number",
    ],
    [{ splits: [{ amount: 0 }, { amount: 1 }] }, "splits.0.amount", "too_small", "splits.0.amount must be more than 0"],
    [
      { splits: [{ amount: 1 }, { amount: 1 }], kind: "x" },
      "kind",
      "invalid_value",
      'kind must be one of "amount", "items"',
    ],
    [
      { splits: [{ amount: 1 }, { amount: 1 }], email: "no" },
      "email",
      "invalid_format",
      "email must be an e-mail address",
    ],
    [
      { splits: [{ amount: 1 }, { amount: 1 }], code: "12345" },
      "code",
      "too_big",
      "code must have at most 4 characters",
    ],
    [
      { splits: [{ amount: 1 }, { amount: 1 }], extra: 1 },
      "extra",
      "unrecognized_keys",
      "extra is not a field of body",
    ],
  ])("says what %j needs in the platform's words", (input, field, constraint, message) => {
    expect(refusal(input)).toMatchObject({ code: "invalid_request", message, details: { field, constraint } });
  });

  it("keeps a schema's own message", () => {
    expect(refusal({ splits: [{ amount: 1 }, { amount: 1 }], note: "" }).message).toBe("note must not be empty");
  });
});
