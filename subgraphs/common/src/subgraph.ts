import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSubgraphSchema } from "@apollo/subgraph";
import type { GraphQLResolverMap } from "@apollo/subgraph/dist/schema-helper";
import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  type FormattedExecutionResult,
  GraphQLError,
  type GraphQLFormattedError,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getOperationAST,
  parse,
  validate,
} from "graphql";
import { type Caller, callerFromHeaders, callerHeaders, type HeaderBag } from "./caller";
import { isConnectionLost } from "./connection-errors";
import { AppError } from "./errors";
import { logger, REQUEST_ID_HEADER } from "./logger";
import { isMalformedId } from "./malformed-ids";
import { inSpan, traceHeaders } from "./tracing";
import { requireNoTransaction } from "./transaction-scope";
import { refusedVariable } from "./variables";

/**
 * Resolvers by type name. Each module types its map with its subgraph's generated `Resolvers`
 * (`src/resolvers.generated.ts`, `npm run codegen`), so arguments are typed from the SDL; a subgraph merges them.
 */
export type ResolverMap = { [typeName: string]: object };

/** @deprecated Apollo's untyped map; type a module's resolvers with its subgraph's generated `Resolvers`. */
export type Resolvers<Context> = GraphQLResolverMap<Context>;

/**
 * Every reference to one entity type in one `_entities` call, resolved together: one answer per reference, in their
 * order, an `Error` failing its reference alone. A batch answers with plain values, so graphql-js completes the
 * entities without a promise each (a hierarchy sends 400 stores at once).
 */
export type ReferenceBatch<Context> = (
  references: Record<string, unknown>[],
  context: Context,
  info: GraphQLResolveInfo,
) => Promise<(object | Error)[]>;

/** What each subgraph package exports: its SDL, its resolvers, and how a request's context is made. */
export interface SubgraphDefinition<Deps, Context> {
  name: string;
  typeDefs: DocumentNode;
  resolvers: ResolverMap;
  /** Entity types whose references are resolved by a batch instead of one `__resolveReference` call each. */
  referenceBatches?: Record<string, ReferenceBatch<Context>>;
  createContext(deps: Deps, caller: Caller): Context;
}

export interface GraphQLRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/**
 * The subgraph's SDL: `src/schema.graphql` (federation link, shared scalars) and each `src/modules/<m>/schema.graphql`,
 * read from `src/` beside `indexDir` (the calling module's `src/`, or `dist/` when compiled: the build copies no SDL).
 */
export function loadTypeDefs(indexDir: string): DocumentNode {
  const srcDir = join(indexDir, "..", "src");
  const modulesDir = join(srcDir, "modules");
  const moduleFiles = existsSync(modulesDir)
    ? readdirSync(modulesDir)
        .sort()
        .map((module) => join(modulesDir, module, "schema.graphql"))
        .filter(existsSync)
    : [];
  return parse([join(srcDir, "schema.graphql"), ...moduleFiles].map((file) => readFileSync(file, "utf8")).join("\n"));
}

export function buildSchema<Deps, Context>(definition: SubgraphDefinition<Deps, Context>): GraphQLSchema {
  // Apollo's map type cannot express `__resolveReference(reference, context, info)`; the generated types check it.
  const schema = buildSubgraphSchema([
    { typeDefs: definition.typeDefs, resolvers: definition.resolvers as GraphQLResolverMap<unknown> },
  ]);
  if (definition.referenceBatches) resolveReferencesInBatches(schema, definition.referenceBatches);
  return schema;
}

/** Replaces `_entities`' resolver: the batched types' references go to their batch, the others as Apollo resolves them. */
function resolveReferencesInBatches<Context>(schema: GraphQLSchema, batches: Record<string, ReferenceBatch<Context>>) {
  const entities = schema.getQueryType()?.getFields()._entities;
  const resolveEach = entities?.resolve;
  if (!entities || !resolveEach) throw new Error("the subgraph has no entities to resolve in batches");
  entities.resolve = async (source, args: { representations: Record<string, unknown>[] }, context, info) => {
    const answers: unknown[] = [];
    const positions = new Map<string, number[]>();
    args.representations.forEach((reference, position) => {
      const type = String(reference.__typename);
      const at = positions.get(type);
      if (at) at.push(position);
      else positions.set(type, [position]);
    });
    await Promise.all(
      [...positions].map(async ([type, at]) => {
        const references = at.map((position) => args.representations[position]!);
        const batch = batches[type];
        const resolved = batch
          ? (await batch(references, context, info)).map((value) =>
              value instanceof Error ? value : { __typename: type, ...value },
            )
          : ((await resolveEach(source, { representations: references }, context, info)) as unknown[]);
        at.forEach((position, index) => {
          answers[position] = resolved[index];
        });
      }),
    );
    return answers;
  };
}

/** An id the database refused as no UUID names no row: docs/decisions.md, "Malformed ids are not found". */
const malformedId = () => new AppError("not_found", "no such record: the id is not one this platform issues");

/**
 * Expected failures keep their code and details; a lost database connection is `service_unavailable` (retry
 * later); an id that is no UUID is `not_found`; anything else reaches the client as `internal_error` without its message, which may carry internals
 * (`logHiddenError` logs what this hides).
 */
export function formatError(error: GraphQLError): GraphQLFormattedError {
  const original = isMalformedId(error.originalError) ? malformedId() : error.originalError;
  if (original instanceof AppError) {
    return {
      message: original.message,
      path: error.path,
      extensions: { code: original.code, details: original.details },
    };
  }
  if (!original || original instanceof GraphQLError) return error.toJSON();
  if (isConnectionLost(original)) {
    return {
      message: "the service is temporarily unavailable; retry shortly",
      path: error.path,
      extensions: { code: "service_unavailable", details: {} },
    };
  }
  return { message: "internal error", path: error.path, extensions: { code: "internal_error", details: {} } };
}

/** Logs, under the request's id, the errors whose message `formatError` keeps from the client. */
export function logHiddenError(error: GraphQLError, requestId: string | undefined) {
  const original = error.originalError;
  if (!original || original instanceof AppError || original instanceof GraphQLError || isMalformedId(original)) return;
  const path = error.path?.join(".");
  if (isConnectionLost(original))
    logger.warn("the database is unavailable", { request_id: requestId, path, error: original.message });
  else logger.error("unexpected error in resolver", { request_id: requestId, path, error: original });
}

/**
 * Executes operations against one subgraph in this process. The caller is read from the hop's headers exactly as
 * the standalone HTTP server reads them, so both wirings trust the same credential.
 */
export function hostSubgraph<Deps, Context>(
  definition: SubgraphDefinition<Deps, Context>,
  deps: Deps,
  internalToken: string,
) {
  const schema = buildSchema(definition);
  // Parsed and validated once per text, as the standalone server's Apollo Server does for each request.
  const documents = new Map<string, DocumentNode>();
  const documentOf = (query: string) => {
    let document = documents.get(query);
    if (!document) {
      document = parse(query);
      const [invalid] = validate(schema, document);
      if (invalid) throw invalid;
      if (documents.size > 1000) documents.clear();
      documents.set(query, document);
    }
    return document;
  };

  return {
    name: definition.name,
    schema,
    contextFor(headers: HeaderBag): Context {
      return definition.createContext(deps, callerFromHeaders(headers, internalToken));
    },
    execute(request: GraphQLRequest, headers: HeaderBag): Promise<FormattedExecutionResult> {
      return inSpan(`subgraph ${definition.name}`, { attributes: subgraphSpanAttributes(request) }, () =>
        this.run(request, headers),
      );
    },
    async run(request: GraphQLRequest, headers: HeaderBag): Promise<FormattedExecutionResult> {
      let result: ExecutionResult;
      try {
        const document = documentOf(request.query);
        // The gateway passes variables of this subgraph's own scalars (JSONObject, DateTime) on unchecked.
        const definitions = getOperationAST(document, request.operationName)?.variableDefinitions ?? [];
        const refused = refusedVariable(schema, definitions, request.variables ?? {});
        if (refused) throw refused;
        result = await execute({
          schema,
          document,
          variableValues: request.variables ?? undefined,
          operationName: request.operationName ?? undefined,
          contextValue: this.contextFor(headers),
        });
      } catch (error) {
        result = {
          errors: [
            error instanceof GraphQLError ? error : new GraphQLError("failed", { originalError: error as Error }),
          ],
        };
      }
      const requestId = headers[REQUEST_ID_HEADER];
      return {
        data: result.data,
        errors: result.errors?.map((error) => {
          logHiddenError(error, typeof requestId === "string" ? requestId : undefined);
          return formatError(error);
        }),
      };
    },
  };
}

export type SubgraphHost = ReturnType<typeof hostSubgraph>;

/** What a subgraph operation's span says of it: the operation's name, when it has one. */
export const subgraphSpanAttributes = (request: Pick<GraphQLRequest, "operationName">) =>
  request.operationName ? { "graphql.operation.name": request.operationName } : {};

/** Where a subgraph answers: in this process (embedded wiring) or at a URL (cluster wiring). */
export type SubgraphEndpoint = { host: SubgraphHost } | { url: string };

/** Runs one operation on a subgraph for a caller, over the internal hop: the caller's headers and the credential. */
export async function callSubgraphAs(
  endpoint: SubgraphEndpoint,
  internalToken: string,
  request: GraphQLRequest,
  caller: Caller,
): Promise<FormattedExecutionResult> {
  requireNoTransaction("subgraph call");
  const headers = callerHeaders(caller, internalToken);
  if ("host" in endpoint) return endpoint.host.execute(request, headers);
  const response = await fetch(endpoint.url, {
    method: "POST",
    headers: { ...headers, ...traceHeaders(), "content-type": "application/json" },
    body: JSON.stringify(request),
  });
  return (await response.json()) as FormattedExecutionResult;
}

/** Combines module resolver maps; modules may each add fields to the same type (Query, Mutation, an entity). */
export function mergeResolvers(...maps: ResolverMap[]): ResolverMap {
  const merged: Record<string, Record<string, unknown>> = {};
  for (const map of maps) {
    for (const [type, fields] of Object.entries(map)) {
      merged[type] = Object.assign(merged[type] ?? Object.create(Object.getPrototypeOf(fields)), fields);
    }
  }
  return merged;
}
