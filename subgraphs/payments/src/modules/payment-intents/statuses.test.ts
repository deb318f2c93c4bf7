import { readFileSync } from "node:fs";
import { type EnumTypeDefinitionNode, Kind, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { PAYMENT_INTENT_STATUSES } from "./payment-intent.repository";

// Issue 21: the service wrote `cancelling` while a provider refund was pending, and the enum lacked it, so every read
// of such an intent failed.
describe("PaymentIntentStatus", () => {
  it("has a value for every status the payments service writes, and no other", () => {
    const schema = parse(readFileSync(new URL("./schema.graphql", import.meta.url), "utf8"));
    const status = schema.definitions.find(
      (definition): definition is EnumTypeDefinitionNode =>
        definition.kind === Kind.ENUM_TYPE_DEFINITION && definition.name.value === "PaymentIntentStatus",
    );
    const values = status?.values?.map((value) => value.name.value) ?? [];
    expect([...values].sort()).toEqual([...PAYMENT_INTENT_STATUSES].sort());
    expect(values).toContain("cancelling");
  });
});
