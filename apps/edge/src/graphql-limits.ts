import { maxAliasesRule } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthRule } from "@escape.tech/graphql-armor-max-depth";
import { maxDirectivesRule } from "@escape.tech/graphql-armor-max-directives";
import {
  type DocumentNode,
  type FieldNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  parse,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  type ValidationContext,
  type ValidationRule,
  validate,
} from "graphql";

/** What one GraphQL operation may ask for and how long it may run (HTTP, graphql-ws and the REST compat alike). */
export interface GraphQLLimits {
  /** Nesting of fields, fragments expanded. */
  maxDepth: number;
  /** Aliased fields, fragments expanded (each spread counts what its fragment holds). */
  maxAliases: number;
  /** Lexical tokens of the document: parsing stops there, so a huge document costs nothing more. */
  maxTokens: number;
  /** Directives, fragments expanded. */
  maxDirectives: number;
  /** Objects the response could hold if every list were a full page, fragments expanded. */
  maxCost: number;
  /** The page size of a list without a `limit` or `first` argument (the services' default limit). */
  defaultPageSize: number;
  /** Time budget of one operation, planning and execution. */
  timeoutMs: number;
  /** graphql-ws subscriptions open at once on one connection. */
  maxSubscriptionsPerConnection: number;
  /** graphql-ws subscriptions open at once for one authenticated subject, over all its connections to this process. */
  maxSubscriptionsPerCaller: number;
  /** How long a graphql-ws socket may take to send `connection_init` before it is closed (4408). */
  connectionInitTimeoutMs: number;
  /** How long a graphql-ws socket may stay open with no subscription or operation running before it is closed (4408). */
  idleConnectionMs: number;
}

export const defaultGraphQLLimits: GraphQLLimits = {
  maxDepth: 6,
  maxAliases: 15,
  maxTokens: 1000,
  maxDirectives: 20,
  // The portal's one-request view, `psps(limit: 100) { nodes { merchants { stores { devices } } } }`, costs about 850,000;
  // six nested lists cost 20^6 = 64,000,000.
  maxCost: 1_000_000,
  defaultPageSize: 20,
  timeoutMs: 15_000,
  // Each open subscription is a read per event: 700 on one socket made one order 700 messages (issue 21).
  maxSubscriptionsPerConnection: 10,
  maxSubscriptionsPerCaller: 50,
  // A terminal subscribes as soon as it connects; a socket that asks for nothing only holds a descriptor (issue 32).
  connectionInitTimeoutMs: 3_000,
  idleConnectionMs: 15_000,
};

/** The defaults, with what configuration sets (unset values keep their default). */
export function graphQLLimits(overrides: Partial<GraphQLLimits> = {}): GraphQLLimits {
  const set = Object.entries(overrides).filter(([, value]) => value !== undefined);
  return { ...defaultGraphQLLimits, ...Object.fromEntries(set) };
}

/** A page size given by a variable is counted as the largest page the services serve (`limit` 1-100). */
const LARGEST_PAGE = 100;

const pageArgument = (field: FieldNode): number | undefined => {
  const argument = field.arguments?.find(({ name }) => name.value === "limit" || name.value === "first");
  if (!argument) return undefined;
  return argument.value.kind === Kind.INT ? Number(argument.value.value) : LARGEST_PAGE;
};

function fieldOf(type: GraphQLNamedType | undefined, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name === "__schema") return SchemaMetaFieldDef;
  if (name === "__type") return TypeMetaFieldDef;
  return isObjectType(type) || isInterfaceType(type) ? type.getFields()[name] : undefined;
}

/**
 * Every object in the response costs 1, times the page size of each list around it; leaves are free (the alias
 * limit bounds how many a selection can hold). A field with a page argument that returns a page object (`nodes`)
 * passes its size to the list inside. Each fragment is costed once and counted at every spread, so a chain of
 * fragments is expanded without being walked exponentially.
 */
function costRule({ maxCost, defaultPageSize }: GraphQLLimits): ValidationRule {
  return (context) => {
    const schema = context.getSchema();
    const fragmentCosts = new Map<string, number>();

    const fragmentCost = (name: string): number => {
      const known = fragmentCosts.get(name);
      if (known !== undefined) return known;
      fragmentCosts.set(name, 0); // a cycle is refused by NoFragmentCyclesRule; it adds nothing here
      const fragment = context.getFragment(name);
      const cost = fragment
        ? selectionCost(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value))
        : 0;
      fragmentCosts.set(name, cost);
      return cost;
    };

    const selectionCost = (set: SelectionSetNode, type: GraphQLNamedType | undefined, page?: number): number => {
      let cost = 0;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FRAGMENT_SPREAD) cost += fragmentCost(selection.name.value);
        else if (selection.kind === Kind.INLINE_FRAGMENT) {
          const condition = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
          cost += selectionCost(selection.selectionSet, condition ?? undefined, page);
        } else if (selection.selectionSet) {
          const field = fieldOf(type, selection.name.value);
          const childType = field && getNamedType(field.type);
          const requested = pageArgument(selection);
          if (field && isListType(getNullableType(field.type)))
            cost += (requested ?? page ?? defaultPageSize) * (1 + selectionCost(selection.selectionSet, childType));
          else cost += 1 + selectionCost(selection.selectionSet, childType, requested);
        }
      }
      return cost;
    };

    return {
      OperationDefinition(operation) {
        const cost = selectionCost(operation.selectionSet, schema.getRootType(operation.operation) ?? undefined);
        if (cost > maxCost)
          context.reportError(
            limitError(`Query cost limit of ${maxCost} exceeded, found ${cost}.`, "max_cost", maxCost),
          );
      },
    };
  };
}

/** Apollo Server reports validation errors as GRAPHQL_VALIDATION_FAILED; graphql-ws gets the same code. */
const limitError = (message: string, constraint: string, limit: number) =>
  new GraphQLError(message, { extensions: { code: "GRAPHQL_VALIDATION_FAILED", details: { constraint, limit } } });

/** graphql-armor throws by default (a 500 from Apollo); reported instead, they are validation errors (400). */
const reportAs = (constraint: string, limit: number) => ({
  n: limit,
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) =>
      context?.reportError(limitError(error.message.replace(/^Syntax Error: /, ""), constraint, limit)),
  ],
});

/**
 * The document limits as validation rules. Apollo Server runs them with the specified rules, before any plugin's
 * `didResolveOperation` and before the gateway plans the operation (it plans in its executor).
 */
export function documentRules(limits: GraphQLLimits): ValidationRule[] {
  return [
    maxDepthRule({ ...reportAs("max_depth", limits.maxDepth), flattenFragments: true }) as unknown as ValidationRule,
    maxAliasesRule(reportAs("max_aliases", limits.maxAliases)) as unknown as ValidationRule,
    maxDirectivesRule(reportAs("max_directives", limits.maxDirectives)) as unknown as ValidationRule,
    costRule(limits),
  ];
}

/**
 * Parses an operation within the token limit and validates it with `rules`, for a transport that parses on its own
 * (graphql-ws); Apollo Server does the same through `parseOptions` and `validationRules`, and, as it does, names
 * every validation error GRAPHQL_VALIDATION_FAILED.
 */
export function limitedDocument(
  schema: GraphQLSchema,
  query: string,
  limits: GraphQLLimits,
  rules: ValidationRule[],
): { document: DocumentNode } | { errors: readonly GraphQLError[] } {
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: limits.maxTokens });
  } catch (error) {
    if (error instanceof GraphQLError)
      return { errors: [new GraphQLError(error.message, { extensions: { code: "GRAPHQL_PARSE_FAILED" } })] };
    throw error;
  }
  const errors = validate(schema, document, rules).map((error) =>
    error.extensions.code
      ? error
      : new GraphQLError(error.message, {
          nodes: error.nodes,
          extensions: { ...error.extensions, code: "GRAPHQL_VALIDATION_FAILED" },
        }),
  );
  return errors.length > 0 ? { errors } : { document };
}
