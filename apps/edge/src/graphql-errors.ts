import type { ApolloServerPlugin } from "@apollo/server";
import {
  AppError,
  asGraphQLError,
  assertJsonDepth,
  assertStorableText,
  type Caller,
  errorCodeOf,
  graphqlCode,
  logger,
  unstorableTextPath,
} from "@pos-cloud/common";
import { GraphQLError, type GraphQLFormattedError, Kind, type ValidationRule } from "graphql";

/** Apollo Server's own codes for a request the client got wrong, and the gateway's answers to the caller. */
const apolloClientCodes = new Set([
  "GRAPHQL_PARSE_FAILED",
  "GRAPHQL_VALIDATION_FAILED",
  "BAD_USER_INPUT",
  "BAD_REQUEST",
  "OPERATION_RESOLUTION_FAILURE",
  "PERSISTED_QUERY_NOT_FOUND",
  "PERSISTED_QUERY_NOT_SUPPORTED",
  "DOWNSTREAM_SERVICE_ERROR",
]);

/**
 * A failure the client may read as it is. Apollo marks every unknown error `INTERNAL_SERVER_ERROR`; a subgraph's
 * hidden failure arrives as `internal_error`, already logged there.
 */
const isExpected = (code: unknown) =>
  code !== graphqlCode("internal_error") &&
  (errorCodeOf(code) !== undefined || (typeof code === "string" && apolloClientCodes.has(code)));

const suggestion = / ?Did you mean(.+?)\?$/;

/**
 * What a client sees of an error: its message, path and `{code, details}`, nothing else: no stack, no subgraph
 * (`serviceName`), no subgraph URL (`response`); the platform's codes in GraphQL's spelling (`graphqlCode`).
 * Anything that is not an expected failure is answered as `INTERNAL_SERVER_ERROR` (and logged by
 * `unexpectedErrorLog`). Without schema details, "Did you mean ..." suggestions
 * (validation, variable coercion) go too.
 */
export function clientErrorFormatter({ schemaDetails }: { schemaDetails: boolean }) {
  return (formatted: GraphQLFormattedError): GraphQLFormattedError => {
    const original = formatted.extensions?.code;
    if (!isExpected(original)) {
      const code = graphqlCode("internal_error");
      return { message: "internal error", path: formatted.path, extensions: { code, details: {} } };
    }
    const platformCode = errorCodeOf(original);
    const code = platformCode ? graphqlCode(platformCode) : original;
    const details = formatted.extensions?.details;
    return {
      message: schemaDetails ? formatted.message : formatted.message.replace(suggestion, ""),
      ...(formatted.locations ? { locations: formatted.locations } : {}),
      ...(formatted.path ? { path: formatted.path } : {}),
      extensions: details === undefined ? { code } : { code, details },
    };
  };
}

/** Logs an error the client sees only as `internal_error`, under the request's id, with the stack of what threw. */
export function logUnexpectedError(requestId: string | undefined, error: unknown, path?: readonly (string | number)[]) {
  logger.error("unexpected error in a GraphQL operation", { request_id: requestId, error, path });
}

/**
 * Errors as a client sees them (`clientErrorFormatter`), for results that no Apollo Server formatted (graphql-ws's
 * own errors, a subgraph's answer read directly); each one hidden as `internal_error` is logged first.
 */
export function clientErrors(
  format: (error: GraphQLFormattedError) => GraphQLFormattedError,
  errors: readonly (GraphQLError | GraphQLFormattedError)[],
  requestId: string | undefined,
): GraphQLFormattedError[] {
  return errors.map((error) => {
    if (!isExpected(error.extensions?.code)) {
      logUnexpectedError(requestId, error instanceof GraphQLError ? (error.originalError ?? error) : error, error.path);
    }
    return format(error instanceof GraphQLError ? error.toJSON() : error);
  });
}

/** Logs, under the request's id, each error the client will see only as `internal_error`. */
export const unexpectedErrorLog: ApolloServerPlugin<{ caller: Caller }> = {
  async requestDidStart({ contextValue }) {
    return {
      async didEncounterErrors({ errors }) {
        for (const error of errors) {
          if (!isExpected(error.extensions?.code))
            logUnexpectedError(contextValue.caller?.requestId, error.originalError ?? error, error.path);
        }
      },
    };
  },
};

/**
 * Text PostgreSQL cannot store (NUL, a lone surrogate) and variables nested deeper than `MAX_JSON_DEPTH` (over
 * graphql-ws they come from no HTTP body) are refused before the operation runs, naming the field: in variables
 * (HTTP, graphql-ws and the REST compat all run through it) ...
 */
export const storableVariables: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async didResolveOperation({ request }) {
        try {
          assertJsonDepth(request.variables ?? {}, "variables");
          assertStorableText(request.variables ?? {});
        } catch (error) {
          throw error instanceof AppError ? asGraphQLError(error) : error;
        }
      },
    };
  },
};

/** ... and in string literals of the document (`"\u0000"` is a valid GraphQL escape), naming the argument's path. */
export const storableLiterals: ValidationRule = (context) => ({
  StringValue(node, _key, parent, _path, ancestors) {
    if (unstorableTextPath(node.value) === undefined) return;
    const field =
      [...ancestors, parent ?? []]
        .flatMap((ancestor) =>
          "kind" in ancestor && (ancestor.kind === Kind.ARGUMENT || ancestor.kind === Kind.OBJECT_FIELD)
            ? [ancestor.name.value]
            : [],
        )
        .join(".") || "query";
    context.reportError(
      new GraphQLError(`${field} contains a NUL character or invalid Unicode`, {
        nodes: [node],
        extensions: { details: { field, constraint: "text" } },
      }),
    );
  },
});
