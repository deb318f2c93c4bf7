import { feedPartsOf } from "@pos-cloud/common";
import type { BusEvent } from "@pos-cloud/common/messaging";
import {
  type FieldNode,
  type FormattedExecutionResult,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  getDirectiveValues,
  Kind,
} from "graphql";

/**
 * The kinds of object a store feed carries, by the bus event's `aggregate_type` (the gateway's intents; the POS's
 * orders, bills and payments, whose payload holds the object under the same name): the `StoreEvent.type` of its
 * events, the `StoreEvent` field that holds the object, and the `Store` field that reads it by id.
 */
const KINDS = {
  payment_intent: { type: "payment_intent_updated", field: "payment_intent", read: "payment_intent" },
  order: { type: "order_updated", field: "order", read: "order" },
  bill: { type: "bill_updated", field: "bill", read: "bill" },
  pos_payment: { type: "payment_updated", field: "payment", read: "pos_payment" },
} as const;

const isKind = (aggregate_type: string): aggregate_type is keyof typeof KINDS => Object.hasOwn(KINDS, aggregate_type);
const kindOf = (event: BusEvent) => (isKind(event.aggregate_type) ? KINDS[event.aggregate_type] : undefined);

/** The StoreEvent fields that hold an event's object, one per kind. */
const objectFields = new Set<string>(Object.values(KINDS).map((kind) => kind.field));

/** The store an event belongs to, or undefined for events no store feed carries. */
export function storeOfEvent(event: BusEvent): number | undefined {
  return isKind(event.aggregate_type) ? feedPartsOf(event)[event.aggregate_type]?.store_id : undefined;
}

const occurredAt = (event: BusEvent) => feedPartsOf(event).metadata?.occurred_at ?? event.created_at;

/** The fields a subscription selects, after `@skip` and `@include`; undefined if it uses fragments. */
export function selectedFields(field: FieldNode, variables: Record<string, unknown>): FieldNode[] | undefined {
  const selections = field.selectionSet?.selections ?? [];
  if (selections.some((selection) => selection.kind !== Kind.FIELD)) return undefined;
  return (selections as FieldNode[]).filter(
    (node) =>
      getDirectiveValues(GraphQLSkipDirective, node, variables)?.if !== true &&
      getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false,
  );
}

/**
 * One message of `storeEvents`: the event's own fields from the bus event, and each selected field of the event's
 * kind (`payment_intent`, `order`, `bill`, `payment`) read by `readStore` as `store(id) { <key>: <read>(id: <the
 * event's object>) { S } }` as the subscriber, so it shows what that query shows them at that moment. The fields of
 * the other kinds are null.
 */
export async function storeEventMessage(
  readStore: (selections: FieldNode[]) => Promise<FormattedExecutionResult>,
  fields: FieldNode[],
  storeId: number,
  event: BusEvent,
  key: string,
): Promise<FormattedExecutionResult> {
  const keyOf = (node: FieldNode) => node.alias?.value ?? node.name.value;
  const kind = kindOf(event)!;
  const objectId = { kind: Kind.STRING, value: event.aggregate_id } as const;
  const reads: FieldNode[] = fields
    .filter((node) => node.name.value === kind.field)
    .map((node) => ({
      ...node,
      name: { kind: Kind.NAME, value: kind.read },
      alias: { kind: Kind.NAME, value: keyOf(node) },
      arguments: [{ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: "id" }, value: objectId }],
    }));
  const result: FormattedExecutionResult = reads.length > 0 ? await readStore(reads) : {};
  const store = (result.data?.store ?? {}) as Record<string, unknown>;
  const values: Record<string, unknown> = {
    __typename: "StoreEvent",
    id: event.id,
    type: kind.type,
    occurred_at: occurredAt(event),
    store_id: storeId,
  };
  const answerOf = (node: FieldNode) => {
    if (node.name.value === kind.field) return store[keyOf(node)] ?? null;
    return objectFields.has(node.name.value) ? null : values[node.name.value];
  };
  const message = Object.fromEntries(fields.map((node) => [keyOf(node), answerOf(node)]));
  const errors = result.errors?.map(({ locations: _, path, ...error }) => ({
    ...error,
    ...(path ? { path: [key, ...path.slice(1)] } : {}),
  }));
  return { data: { [key]: message }, ...(errors ? { errors } : {}) };
}
