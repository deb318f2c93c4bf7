import type { Caller } from "@pos-cloud/common";
import { AppError, type ErrorCode, errorCodeOf } from "@pos-cloud/common";
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

/**
 * An operation of `rest-compat/src/operations/*.graphql`, as its generated module exports it (`CreateOrderDocument`
 * of `operations/gateway.generated.ts`): the text sent, typed with the operation's result and variables.
 */
export interface Operation<Result, Variables> {
  toString(): string;
  __apiType?: (variables: Variables) => Result;
}

/**
 * A route's variables for an operation: only names the operation declares; the values come from the request as
 * sent, and GraphQL checks them (a wrong one is a 400 naming the field).
 */
export type RouteVariables<Variables> = { [Name in keyof Variables]?: unknown };

/** Runs a generated operation for a caller: its data, typed by the document, or its first error thrown. */
export async function runOperation<Result, Variables>(
  execute: ExecuteOperation,
  operation: Operation<Result, Variables>,
  variables: RouteVariables<Variables>,
  caller: Caller,
): Promise<Result> {
  return dataOf(await execute(operation.toString(), variables, caller)) as Result;
}

// Errors raised by GraphQL itself rather than by our services.
const graphqlCodes: Record<string, ErrorCode> = {
  GRAPHQL_PARSE_FAILED: "invalid_request",
  GRAPHQL_VALIDATION_FAILED: "invalid_request",
  BAD_USER_INPUT: "invalid_request",
};

/**
 * A REST body is its operation's `input` variable, so a refused variable that GraphQL names by its path in the
 * variables (`input.address.city`) is named as the client sent it (`address.city`), and `input` itself is the body.
 */
function asBodyField(error: AppError): AppError {
  const field = error.details.field;
  if (typeof field !== "string" || !(field === "input" || field.startsWith("input."))) return error;
  const bodyField = field === "input" ? "body" : field.slice("input.".length);
  return new AppError(error.code, error.message.replace(field, bodyField), { ...error.details, field: bodyField });
}

/** The first error of a result as the REST face reports it, never in GraphQL's words. */
export function toAppError(error: GraphQLFormattedError): AppError {
  const code = error.extensions?.code;
  const details = (error.extensions?.details as Record<string, unknown> | undefined) ?? {};
  const platformCode = errorCodeOf(code);
  if (platformCode) return asBodyField(new AppError(platformCode, error.message, details));
  const mapped = typeof code === "string" ? graphqlCodes[code] : undefined;
  if (mapped === "invalid_request") return new AppError(mapped, "the request is not valid", details);
  if (mapped) return new AppError(mapped, error.message, details);
  return new AppError("internal_error", "internal error");
}

/** The data of a successful result, or the result's first error thrown as an AppError. */
export function dataOf(result: OperationResult): Record<string, unknown> {
  const first = result.errors?.[0];
  if (first) throw toAppError(first);
  return result.data ?? {};
}
