import type { Caller } from "@pos-cloud/common";
import { AppError, type ErrorCode, isErrorCode } from "@pos-cloud/common";
import type { GraphQLFormattedError } from "graphql";

export interface OperationResult {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLFormattedError[];
}

/** Runs one GraphQL operation of the supergraph on behalf of a caller (the gateway's `executeOperation`). */
export type ExecuteOperation = (
  query: string,
  variables: Record<string, unknown>,
  caller: Caller,
) => Promise<OperationResult>;

// Errors raised by GraphQL itself rather than by our services.
const graphqlCodes: Record<string, ErrorCode> = {
  GRAPHQL_PARSE_FAILED: "invalid_request",
  GRAPHQL_VALIDATION_FAILED: "invalid_request",
  BAD_USER_INPUT: "invalid_request",
  UNAUTHENTICATED: "unauthorized",
  FORBIDDEN: "forbidden",
};

/** The first error of a result as the REST face reports it; a variable GraphQL rejected names its field. */
export function toAppError(error: GraphQLFormattedError): AppError {
  const code = error.extensions?.code;
  const details = (error.extensions?.details as Record<string, unknown> | undefined) ?? {};
  if (isErrorCode(code)) return new AppError(code, error.message, details);
  const mapped = typeof code === "string" ? graphqlCodes[code] : undefined;
  if (mapped) {
    const field = /Variable "\$(\w+)"/.exec(error.message)?.[1];
    return new AppError(mapped, error.message, field ? { field } : {});
  }
  return new AppError("internal_error", "internal error");
}

/** The data of a successful result, or the result's first error thrown as an AppError. */
export function dataOf(result: OperationResult): Record<string, unknown> {
  const first = result.errors?.[0];
  if (first) throw toAppError(first);
  return result.data ?? {};
}
