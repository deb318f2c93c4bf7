import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseInput } from "./input";
import { isPrintableText, printable, printableJson, stripUnprintable } from "./printable";

describe("printable text", () => {
  it("refuses C0 and C1 controls, carriage return and bidi controls; keeps newline, tab and any script", () => {
    for (const bad of [
      "\u0000",
      "\u0007",
      "\u001b[2J",
      "\r",
      "\u007f",
      "\u0085",
      "\u009b",
      "\u202a",
      "\u202e",
      "\u2066",
      "\u2069",
    ])
      expect(isPrintableText(`a${bad}b`), JSON.stringify(bad)).toBe(false);
    for (const good of ["Tea\nset", "Tea\tset", "味噌ラーメン 🍜", "\u200f", "\u2028"])
      expect(isPrintableText(good)).toBe(true);
  });

  it("strips them for rows written before the rule", () => {
    expect(stripUnprintable("Tea\u0007\u001b[2J\u202e\n")).toBe("Tea[2J\n");
  });

  it("is reported by parseInput as printable_text, naming the field, in strings and in JSON objects", () => {
    const schema = z.strictObject({
      items: z.array(z.strictObject({ item_name: printable(z.string()) })),
      settings: printableJson(z.record(z.string(), z.json())).optional(),
    });
    expect(() => parseInput(schema, { items: [{ item_name: "Tea\u001b" }] })).toThrow(
      expect.objectContaining({ details: { field: "items.0.item_name", constraint: "printable_text" } }),
    );
    expect(() => parseInput(schema, { items: [], settings: { footer: ["ok", { "\u202e": 1 }] } })).toThrow(
      expect.objectContaining({ details: { field: "settings", constraint: "printable_text" } }),
    );
    expect(parseInput(schema, { items: [{ item_name: "Tea" }], settings: { footer: "Bye\nagain" } })).toBeTruthy();
  });
});
