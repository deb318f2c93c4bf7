import { pageSchema } from "@pos-cloud/common";
import {
  requestSchemas as payments,
  bodyFields as paymentsBodyFields,
  queryFilters as paymentsFilters,
} from "@pos-cloud/payments/request-schemas";
import { requestSchemas as portal, queryFilters as portalFilters } from "@pos-cloud/portal/request-schemas";
import {
  requestSchemas as pos,
  bodyFields as posBodyFields,
  queryFilters as posFilters,
} from "@pos-cloud/pos/request-schemas";
import { z } from "zod";

/** The services' validators of GraphQL input types, by type name (the subgraphs' `request-schemas.ts`). */
const validators: Record<string, z.ZodType> = { ...portal, ...pos, ...payments };
/** The services' validators of lists' filters, by the query field that lists. */
const queryFilters: Record<string, z.ZodObject> = { ...portalFilters, ...posFilters, ...paymentsFilters };
/** The services' validators of bodies that are not one input type, by the mutation field. */
const bodyFields: Record<string, z.ZodObject> = { ...posBodyFields, ...paymentsBodyFields };

const converted = new Map<string, Record<string, unknown> | undefined>();
/** Schemas a validator refers to (a JSON value nests itself), for the document's `components.schemas`. */
const definitions: Record<string, unknown> = {};

/**
 * The JSON Schema of the validator a service runs on an input type, as a client sends it (zod's input side: before
 * defaults and transforms). Refinements across fields (a dine-in order needs its table) have no JSON Schema; the
 * field descriptions and the 400 say them. Undefined when the type has no validator beyond GraphQL's own.
 */
export function validatorSchema(inputType: string): Record<string, unknown> | undefined {
  if (converted.has(inputType)) return converted.get(inputType);
  const validator = validators[inputType];
  let schema: Record<string, unknown> | undefined;
  if (validator) {
    const json = z.toJSONSchema(validator, { target: "draft-2020-12", io: "input", unrepresentable: "any" });
    // A `$defs` entry would be resolved against the whole document: it moves to the components, named by its type.
    const {
      $schema: _,
      $defs = {},
      ...rest
    } = JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', `"#/components/schemas/${inputType}.`)) as Record<
      string,
      unknown
    > & { $defs?: Record<string, unknown> };
    for (const [name, definition] of Object.entries($defs)) definitions[`${inputType}.${name}`] = definition;
    schema = rest;
  }
  converted.set(inputType, schema);
  return schema;
}

/** Every schema the validators described so far refer to. */
export const validatorDefinitions = () => ({ ...definitions });

const asJsonSchema = (validator: z.ZodType) => {
  const { $schema: _, ...schema } = z.toJSONSchema(validator, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
  });
  return schema;
};

/**
 * The validator of one query parameter of a list: its filter's field (`status` of `orders`), or the page every list
 * checks (`limit` 1 to 100, `offset` from 0). Undefined when the service checks it with GraphQL's type alone.
 */
export function queryParameterSchema(field: string, name: string): Record<string, unknown> | undefined {
  const filter = queryFilters[field]?.shape[name] ?? pageSchema.shape[name as keyof typeof pageSchema.shape];
  return filter ? asJsonSchema(filter as z.ZodType) : undefined;
}

/**
 * The validator of one body field of a route whose body is not one input type (`confirmPaymentIntent`'s arguments):
 * the service's validator of the field. Undefined when the service checks it with GraphQL's type alone.
 */
export function bodyFieldSchema(field: string, name: string): Record<string, unknown> | undefined {
  const validator = bodyFields[field]?.shape[name];
  return validator ? asJsonSchema(validator as z.ZodType) : undefined;
}

/** Whether the service's validator of a body field refuses the field's absence. */
export const bodyFieldRequired = (field: string, name: string) =>
  bodyFields[field]?.shape[name]?.safeParse(undefined).success === false;
