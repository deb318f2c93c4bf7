import type { BusEvent } from "@pos-cloud/common/messaging";
import {
  type FieldNode,
  type FormattedExecutionResult,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  getDirectiveValues,
  Kind,
} from "graphql";

/** What a store event is about, as `StoreEvent.type` says it; each kind fills the field of the same name. */
const TYPES = { payment_intent: "payment_intent_updated" } as const;

/** The store an event belongs to, or undefined for events no store feed carries. */
export function storeOfEvent(event: BusEvent): number | undefined {
  if (event.aggregate_type !== "payment_intent") return undefined;
  const storeId = (event.payload.payment_intent as { store_id?: unknown } | undefined)?.store_id;
  return typeof storeId === "number" ? storeId : undefined;
}

const occurredAt = (event: BusEvent) => {
  const at = (event.payload.metadata as { occurred_at?: unknown } | undefined)?.occurred_at;
  return typeof at === "string" ? at : event.created_at;
};

/** The `StoreEvent` fields a subscription selects, after `@skip` and `@include`; undefined if it uses fragments. */
export function storeEventFields(field: FieldNode, variables: Record<string, unknown>): FieldNode[] | undefined {
  const selections = field.selectionSet?.selections ?? [];
  if (selections.some((selection) => selection.kind !== Kind.FIELD)) return undefined;
  return (selections as FieldNode[]).filter(
    (node) =>
      getDirectiveValues(GraphQLSkipDirective, node, variables)?.if !== true &&
      getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false,
  );
}

/**
 * One message of `storeEvents`: the event's own fields from the bus event, and each selected `payment_intent` read
 * by `readStore` as `store(id) { <key>: payment_intent(id: <the event's intent>) { S } }` as the subscriber, so it
 * shows what that query shows them at that moment.
 */
export async function storeEventMessage(
  readStore: (selections: FieldNode[]) => Promise<FormattedExecutionResult>,
  fields: FieldNode[],
  storeId: number,
  event: BusEvent,
  key: string,
): Promise<FormattedExecutionResult> {
  const keyOf = (node: FieldNode) => node.alias?.value ?? node.name.value;
  const intentId = { kind: Kind.STRING, value: event.aggregate_id } as const;
  const intents: FieldNode[] = fields
    .filter((node) => node.name.value === "payment_intent")
    .map((node) => ({
      ...node,
      alias: { kind: Kind.NAME, value: keyOf(node) },
      arguments: [{ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: "id" }, value: intentId }],
    }));
  const result: FormattedExecutionResult = intents.length > 0 ? await readStore(intents) : {};
  const store = (result.data?.store ?? {}) as Record<string, unknown>;
  const values: Record<string, unknown> = {
    __typename: "StoreEvent",
    id: event.id,
    type: TYPES.payment_intent,
    occurred_at: occurredAt(event),
    store_id: storeId,
  };
  const message = Object.fromEntries(
    fields.map((node) => [
      keyOf(node),
      node.name.value === "payment_intent" ? (store[keyOf(node)] ?? null) : values[node.name.value],
    ]),
  );
  const errors = result.errors?.map(({ locations: _, path, ...error }) => ({
    ...error,
    ...(path ? { path: [key, ...path.slice(1)] } : {}),
  }));
  return { data: { [key]: message }, ...(errors ? { errors } : {}) };
}
