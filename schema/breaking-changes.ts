// A change that can break a client already written against the public API (a field removed, a type narrowed, an
// argument added as required, an enum value removed, ...) is accepted only when schema/breaking-changes.json declares
// it, so clients are not broken by surprise.
import { Supergraph } from "@apollo/federation-internals";
import { type Change, CriticalityLevel, diff } from "@graphql-inspector/core";
import type { GraphQLSchema } from "graphql";
import { z } from "zod";

/** One accepted breaking change: the inspector's message for it, and why clients can cope with it. */
const declarationsSchema = z.array(z.object({ message: z.string().min(1), reason: z.string().min(1) }).strict());
export type BreakingChangeDeclaration = z.infer<typeof declarationsSchema>[number];

export function parseDeclarations(json: string): BreakingChangeDeclaration[] {
  return declarationsSchema.parse(JSON.parse(json));
}

/** What clients see of a supergraph: its API schema, without the @inaccessible elements and the join machinery. */
export function apiSchemaOf(supergraphSdl: string): GraphQLSchema {
  return Supergraph.build(supergraphSdl).apiSchema().toGraphQLJSSchema();
}

/** The breaking changes from the baseline API schema to the current one that no declaration accepts. */
export async function undeclaredBreakingChanges(
  baseline: GraphQLSchema,
  current: GraphQLSchema,
  declarations: BreakingChangeDeclaration[],
): Promise<Change[]> {
  const accepted = new Set(declarations.map(({ message }) => message));
  const changes = await diff(baseline, current);
  return changes.filter(
    ({ criticality, message }) => criticality.level === CriticalityLevel.Breaking && !accepted.has(message),
  );
}
