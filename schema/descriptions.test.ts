// A UI developer reads the schema, not our code: every type, field, input field and enum value a client can see says
// what it is for. Arguments are exempt: they are named after the field they filter (`id`, `limit`, `offset`) or take
// one typed `input` whose fields are described.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
} from "graphql";
import { expect, it } from "vitest";

// compose --check keeps api.graphql equal to the composed public API.
const api = buildSchema(readFileSync(join(import.meta.dirname, "api.graphql"), "utf8"));

it("describes every type, field and enum value of the public API", () => {
  const undescribed: string[] = [];
  for (const type of Object.values(api.getTypeMap())) {
    if (isSpecifiedScalarType(type) || isIntrospectionType(type)) continue;
    if (!type.description) undescribed.push(type.name);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (!field.description) undescribed.push(`${type.name}.${field.name}`);
      }
    }
    if (isEnumType(type)) {
      for (const value of type.getValues()) if (!value.description) undescribed.push(`${type.name}.${value.name}`);
    }
  }
  expect(undescribed).toEqual([]);
});
