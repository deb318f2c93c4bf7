import {
  asGraphQLError,
  type Caller,
  errorCodeOf,
  paymentIntentMachine,
  refusedVariable,
  unauthenticated,
} from "@pos-cloud/common";
import type { BusEvent, MessageBus } from "@pos-cloud/common/messaging";
import type { Repeater } from "@repeaterjs/repeater";
import {
  type DocumentNode,
  type FieldNode,
  type FormattedExecutionResult,
  GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  parse,
} from "graphql";
import { eventFeeds, type Feed } from "./event-feeds";
import {
  asQuery,
  asUpdate,
  selectsObjects,
  statusOfEvent,
  storeField,
  storeReadDocument,
  tokenReadDocument,
  updateFromEvent,
} from "./intent-updates";
import { StoreEventsAllowedDocument } from "./operations/gateway.generated";
import { SubscribedPaymentIntentDocument } from "./operations/payments.generated";
import { selectedFields, storeEventMessage } from "./store-events";
import type { CallSubgraph } from "./subgraph-client";

const storeEventsAllowed = parse(StoreEventsAllowedDocument.toString());

/** Runs a query through the gateway as `caller`, exactly as over HTTP (validation, plugins, time budget). */
export type RunQuery = (
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
  caller: Caller,
) => Promise<FormattedExecutionResult>;

/** Runs a query on the payments subgraph itself, for what the public graph leaves out (`paymentIntentByToken`). */
export type ReadByToken = (
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  caller: Caller,
) => Promise<FormattedExecutionResult>;

export interface SubscriptionRequest {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string;
  variables?: Record<string, unknown>;
  caller: Caller;
  /** The payment token a connection authenticated with: it follows its own intent, nothing else. */
  paymentToken?: string;
  /** Whether the connection's token still holds, asked before each message. */
  stillValid: () => boolean;
  /** Ends the connection whose token expired: the client reconnects with a fresh one. */
  closeExpired: () => void;
}

const refusal = (message: string, code: string, details?: Record<string, string>) => [
  new GraphQLError(message, { extensions: details ? { code, details } : { code } }),
];

const asGraphQLErrors = (errors: readonly GraphQLFormattedError[]) =>
  errors.map((error) => new GraphQLError(error.message, { path: error.path, extensions: error.extensions }));

/** The intent's store and status as the payments subgraph has them, whoever asks. */
const intentLookUp = (callSubgraph: CallSubgraph) => async (id: string) =>
  (await callSubgraph("payments", SubscribedPaymentIntentDocument, { id })).subscribedPaymentIntent;

/** What a subscription reads with, and the feed of events it answers. */
interface Readers {
  run: RunQuery;
  readByToken: ReadByToken;
  lookUp: ReturnType<typeof intentLookUp>;
  feed: Feed;
}

/**
 * The intent's state after every change, starting with the current one, until a terminal state. Changes queued
 * while a read runs are one read: a subscriber is sent states, not every event. `fromEvent` answers from an event
 * alone when it can.
 */
function intentUpdates(
  { feed, lookUp }: Readers,
  id: string,
  read: () => Promise<FormattedExecutionResult>,
  fromEvent: (event: BusEvent) => FormattedExecutionResult | undefined,
  request: SubscriptionRequest,
) {
  let last: string | undefined;
  return feed(
    "paymentIntentUpdated",
    `intent:${id}`,
    request,
    async (event, push) => {
      // The status before the read: a terminal one is what the read shows too, as it never changes again. Events
      // of one intent come in order, so the last one's status is the intent's.
      const status = (event && statusOfEvent(event)) ?? (await lookUp(id))?.status;
      const ending = paymentIntentMachine.terminal.has(status ?? "");
      const result = (event && fromEvent(event)) ?? (await read());
      // A payment token refused after it opened the subscription has expired.
      if (result.errors?.some((error) => errorCodeOf(error.extensions?.code) === "invalid_token")) {
        request.closeExpired();
        return false;
      }
      const sent = JSON.stringify(result);
      if (sent !== last) {
        last = sent;
        await push(result);
      }
      return !ending;
    },
    true,
  );
}

async function openIntentUpdates(
  readers: Readers,
  request: SubscriptionRequest,
  operation: OperationDefinitionNode,
  field: FieldNode,
  id: string,
  coerced: Record<string, unknown>,
) {
  const { document, operationName, variables, caller, paymentToken } = request;
  const key = field.alias?.value ?? field.name.value;
  let read: () => Promise<FormattedExecutionResult>;
  // A payment token's every read also checks that the token still holds; so it is always read.
  const fields = paymentToken ? undefined : selectedFields(field, coerced);
  const fromEvent = (event: BusEvent) => (fields ? updateFromEvent(fields, event, key) : undefined);
  if (paymentToken) {
    if (selectsObjects(document, field)) {
      return { errors: refusal("a payment token reads the intent's own fields only", "forbidden") };
    }
    // The token itself says whether it opens this intent, before anything tells whether the intent exists.
    const query = tokenReadDocument(document, operation, field, paymentToken);
    read = async () => asUpdate(await readers.readByToken(query, variables, caller), ["paymentIntentByToken"], key);
  } else {
    const intent = await readers.lookUp(id);
    if (!intent) return { errors: refusal("payment intent not found", "not_found") };
    const query = storeReadDocument(document, operation, field, intent.store_id);
    read = async () =>
      asUpdate(await readers.run(query, variables, operationName, caller), ["store", "payment_intent"], key);
  }
  const first = await read();
  if (!first.data) return { errors: asGraphQLErrors(first.errors ?? []) };
  return { updates: intentUpdates(readers, id, read, fromEvent, request) };
}

/** Each event of the store, in order; authorized as reading the store is, at subscribe time and in every read. */
async function openStoreEvents(
  { run, feed }: Readers,
  request: SubscriptionRequest,
  operation: OperationDefinitionNode,
  field: FieldNode,
  args: { store_id?: number | null },
  variables: Record<string, unknown>,
) {
  const { document, operationName, caller } = request;
  if (request.paymentToken)
    return { errors: refusal("a payment token follows its own payment intent only", "forbidden") };
  const storeId = args.store_id ?? (caller.type === "device" ? caller.storeId : undefined);
  if (storeId === undefined) {
    return {
      errors: refusal("store_id is required", "invalid_request", { field: "store_id", constraint: "required" }),
    };
  }
  const fields = selectedFields(field, variables);
  if (!fields) {
    return { errors: refusal("select StoreEvent's fields without fragments", "invalid_request") };
  }
  const allowed = await run(storeEventsAllowed, { id: storeId }, undefined, caller);
  if (!allowed.data?.store) return { errors: asGraphQLErrors(allowed.errors ?? []) };
  const readStore = (selections: FieldNode[]) =>
    run(asQuery(document, operation, [storeField(storeId, selections)]), request.variables, operationName, caller);
  const key = field.alias?.value ?? field.name.value;
  const updates = feed(
    "storeEvents",
    `store:${storeId}`,
    request,
    async (event, push) => {
      if (event) await push(await storeEventMessage(readStore, fields, storeId, event, key));
      return true;
    },
    false,
  );
  return { updates };
}

/**
 * The terminals' real-time channel, on the edge: one listener on the bus's internal topic for the whole edge, and
 * per subscription a read through the gateway as the subscriber after each event of its intent or store. An intent
 * subscription whose fields an intent event holds is answered from the event itself after its first read, which
 * checked the subscriber's reach (docs/decisions.md). An intent's answer equal to the last one sent is not sent again.
 */
export async function createSubscriptions(deps: {
  bus: MessageBus;
  run: RunQuery;
  callSubgraph: CallSubgraph;
  readByToken: ReadByToken;
}) {
  const feeds = await eventFeeds(deps.bus);
  const readers: Readers = {
    run: deps.run,
    readByToken: deps.readByToken,
    lookUp: intentLookUp(deps.callSubgraph),
    feed: feeds.feed,
  };

  return {
    /**
     * Checks a subscription and the subscriber's first read of it: the errors to refuse it with, or its messages
     * (started when graphql-ws first asks, so one abandoned before that holds nothing).
     */
    async open(
      request: SubscriptionRequest,
    ): Promise<{ errors: readonly GraphQLError[] } | { updates: Repeater<FormattedExecutionResult> }> {
      const { schema, document, operationName, variables, caller } = request;
      // Before any look-up, so that no token learns whether an intent exists.
      if (caller.type === "anonymous" && !request.paymentToken)
        return { errors: refusal(unauthenticated().message, "unauthorized") };
      const operation = getOperationAST(document, operationName);
      const [field, ...more] = operation?.selectionSet.selections ?? [];
      const definition =
        field?.kind === Kind.FIELD ? schema.getSubscriptionType()?.getFields()[field.name.value] : undefined;
      if (!operation || !definition || field?.kind !== Kind.FIELD || more.length > 0) {
        return {
          errors: refusal("a subscription selects one root field itself, without fragments", "invalid_request"),
        };
      }
      // A refused variable named as over HTTP (`details {field, constraint}`), not in GraphQL's words without a code.
      const refused = refusedVariable(schema, operation.variableDefinitions ?? [], variables ?? {});
      if (refused) return { errors: [asGraphQLError(refused)] };
      const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
      if (coerced.errors) return { errors: coerced.errors };
      const args = getArgumentValues(definition, field, coerced.coerced);
      if (field.name.value === "storeEvents")
        return openStoreEvents(readers, request, operation, field, args, coerced.coerced);
      return openIntentUpdates(readers, request, operation, field, (args as { id: string }).id, coerced.coerced);
    },
    close: feeds.close,
  };
}

export type Subscriptions = Awaited<ReturnType<typeof createSubscriptions>>;
