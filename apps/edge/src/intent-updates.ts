import { feedPartsOf } from "@pos-cloud/common";
import type { BusEvent } from "@pos-cloud/common/messaging";
import {
  type DefinitionNode,
  type DocumentNode,
  type FieldNode,
  type FormattedExecutionResult,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  type SelectionNode,
  visit,
} from "graphql";

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;

/**
 * `document` with `operation` turned into a query that selects `selections`; other definitions (fragments) kept, and
 * the variables the query no longer uses (the subscription's own arguments) left out, as GraphQL refuses them.
 */
export function asQuery(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  selections: SelectionNode[],
): DocumentNode {
  const query: OperationDefinitionNode = {
    ...operation,
    operation: OperationTypeNode.QUERY,
    selectionSet: { kind: Kind.SELECTION_SET, selections },
  };
  const used = new Set<string>();
  const definitions = document.definitions.map((definition) => (definition === operation ? query : definition));
  for (const definition of definitions) {
    visit(definition === query ? { ...query, variableDefinitions: [] } : definition, {
      Variable: (node) => {
        used.add(node.name.value);
      },
    });
  }
  const variableDefinitions = operation.variableDefinitions?.filter((node) => used.has(node.variable.name.value));
  const spread = spreadFragments(definitions, query);
  return {
    ...document,
    definitions: definitions.flatMap((definition) => {
      if (definition === query) return [{ ...query, variableDefinitions }];
      // A fragment only the other events' fields spread: GraphQL refuses a document with an unused one.
      return definition.kind === Kind.FRAGMENT_DEFINITION && !spread.has(definition.name.value) ? [] : [definition];
    }),
  };
}

/** The fragments `operation` spreads, directly or through other fragments. */
function spreadFragments(definitions: readonly DefinitionNode[], operation: OperationDefinitionNode) {
  const fragments = new Map(
    definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [],
    ),
  );
  const spread = new Set<string>();
  const walk = (node: DefinitionNode) =>
    visit(node, {
      FragmentSpread: ({ name: { value } }) => {
        const fragment = fragments.get(value);
        if (spread.has(value) || !fragment) return;
        spread.add(value);
        walk(fragment);
      },
    });
  walk(operation);
  return spread;
}

/** `store(id: <storeId>) { selections }`. */
export function storeField(storeId: number, selections: SelectionNode[]): FieldNode {
  return {
    kind: Kind.FIELD,
    name: name("store"),
    arguments: [{ kind: Kind.ARGUMENT, name: name("id"), value: { kind: Kind.INT, value: String(storeId) } }],
    selectionSet: { kind: Kind.SELECTION_SET, selections },
  };
}

/**
 * The read a subscription runs on every change: `subscription { paymentIntentUpdated(id) { S } }` becomes
 * `query { store(id: <its store>) { payment_intent(id) { S } } }` with the same variables, fragments and directives,
 * so a subscriber sees exactly what that query shows it (its reach, its errors).
 */
export function storeReadDocument(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  field: FieldNode,
  storeId: number,
): DocumentNode {
  const intent: FieldNode = { ...field, alias: undefined, name: name("payment_intent") };
  return asQuery(document, operation, [storeField(storeId, [intent])]);
}

/**
 * The read of a connection opened with a payment token, on the payments subgraph itself: `paymentIntentByToken(id,
 * payment_token) { S }`, as the REST face reads an intent by its token. The token is a literal, so the client's
 * variables stay as they are.
 */
export function tokenReadDocument(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  field: FieldNode,
  paymentToken: string,
): DocumentNode {
  const token = {
    kind: Kind.ARGUMENT,
    name: name("payment_token"),
    value: { kind: Kind.STRING, value: paymentToken },
  } as const;
  const intent: FieldNode = {
    ...field,
    alias: undefined,
    name: name("paymentIntentByToken"),
    arguments: [...(field.arguments ?? []), token],
  };
  return asQuery(document, operation, [intent]);
}

/**
 * A read's answer in the subscription's shape: the value at `at` (the read's path to the intent) under the client's
 * response key, error paths too.
 */
export function asUpdate(result: FormattedExecutionResult, at: string[], key: string): FormattedExecutionResult {
  let value: unknown = result.data;
  for (const step of at) value = (value as Record<string, unknown> | null | undefined)?.[step];
  const errors = result.errors?.map(({ locations: _, path, ...error }) => ({
    ...error,
    ...(path ? { path: [key, ...path.slice(at.every((step, index) => path[index] === step) ? at.length : 1)] } : {}),
  }));
  return { data: value ? { [key]: value } : null, ...(errors ? { errors } : {}) };
}

/**
 * Whether `field` selects an object below it (`store { ... }`), through fragments too: what other subgraphs resolve,
 * which a read on the payments subgraph alone cannot answer.
 */
export function selectsObjects(document: DocumentNode, field: FieldNode): boolean {
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [],
    ),
  );
  const seen = new Set<string>();
  const within = (selections: readonly SelectionNode[]): boolean =>
    selections.some((selection) => {
      if (selection.kind === Kind.FIELD) return selection.selectionSet !== undefined;
      if (selection.kind === Kind.INLINE_FRAGMENT) return within(selection.selectionSet.selections);
      const name = selection.name.value;
      if (seen.has(name)) return false;
      seen.add(name);
      return within(fragments.get(name)?.selectionSet.selections ?? []);
    });
  return within(field.selectionSet?.selections ?? []);
}

/**
 * PaymentIntent fields an intent event's payload (the public intent, `publicPaymentIntent`) holds exactly as the
 * graph shows them: scalars as they are. Not dates (the graph's DateTime) nor `metadata` (JSON).
 */
const EVENT_FIELDS = new Set([
  "id",
  "status",
  "amount",
  "currency",
  "failure_code",
  "failure_message",
  "merchant_id",
  "store_id",
  "merchant_ref_id",
  "merchant_store_id",
  "merchant_terminal_id",
  "order_id",
  "payment_method_type",
  "provider_name",
  "description",
]);

/**
 * The subscription's message from an intent event alone, when the event holds every selected field (`fields`, after
 * `@skip` and `@include`), in the shape a read gives; undefined when one is not there (another subgraph's, a date).
 */
export function updateFromEvent(
  fields: FieldNode[],
  event: BusEvent,
  key: string,
): FormattedExecutionResult | undefined {
  const held = feedPartsOf(event).payment_intent;
  if (!held) return undefined;
  const intent: Record<string, unknown> = { ...held };
  const value: Record<string, unknown> = {};
  for (const node of fields) {
    const name = node.name.value;
    const answer = name === "__typename" ? "PaymentIntent" : EVENT_FIELDS.has(name) ? intent[name] : undefined;
    if (answer === undefined) return undefined;
    value[node.alias?.value ?? name] = answer;
  }
  return { data: { [key]: value } };
}

/** The status an intent event says its intent reached, if it says. */
export function statusOfEvent(event: BusEvent): string | undefined {
  return feedPartsOf(event).payment_intent?.status;
}
