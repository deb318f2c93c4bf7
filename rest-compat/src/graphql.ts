import type { Caller } from "@pos-cloud/common";
import { AppError, type ErrorCode, invalidField, isErrorCode } from "@pos-cloud/common";
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
  UNAUTHENTICATED: "unauthorized",
  FORBIDDEN: "forbidden",
};

const scalarWords: Record<string, string> = {
  String: "a string",
  ID: "a string",
  Int: "an integer",
  Float: "a number",
  Boolean: "true or false",
};

/**
 * GraphQL's refusal of a variable (`Variable "$input" got invalid value 5 at "input.name"; String cannot ...`) said
 * the REST way: the field as the client sent it (`name`: a REST body is the operation's `input`), what is wrong with
 * it, and none of GraphQL's wording, which names types and variables a REST client never sees.
 */
function variableError(message: string): AppError {
  const variable = /^Variable "\$(\w+)"/.exec(message)?.[1];
  if (!variable) return new AppError("invalid_request", "the request is not valid");
  // The refused value is quoted inside the message: only field names (\w) are taken from it, never echoed text.
  const at = /^Variable "\$\w+" got invalid value (?:.* )?at "([\w.[\]]+)"; /s.exec(message)?.[1];
  const missing = /; Field "(\w+)" (of required type|is not defined)/.exec(message);
  const path = [...(at ?? variable).replace(/\[(\d+)\]/g, ".$1").split("."), ...(missing ? [missing[1]!] : [])];
  if (path[0] === "input" && path.length > 1) path.shift();
  const field = path.join(".");
  if (missing?.[2] === "is not defined")
    return invalidField(field, "unknown_field", `${field} is not a field of this request`);
  if (
    missing ||
    / (was not provided|must not be null)\.$|; Expected non-nullable type .* not to be null\.$/.test(message)
  )
    return invalidField(field, "required", `${field} is required`);
  // A closed set (a GraphQL enum) refused the value, as the services did before the schema typed it.
  if (/; (Value .* does not exist in "\w+" enum\.|Enum "\w+" cannot represent )/s.test(message))
    return invalidField(field, "enum", `${field} is not one of the values the API accepts`);
  if (/; Expected a list\.$/.test(message)) return invalidField(field, "type", `${field} must be an array`);
  const expected = scalarWords[/; (\w+) cannot represent/.exec(message)?.[1] ?? ""];
  return invalidField(
    field,
    "type",
    expected ? `${field} must be ${expected}` : `${field} has the wrong type or format`,
  );
}

/** The first error of a result as the REST face reports it; a variable GraphQL rejected names its field. */
export function toAppError(error: GraphQLFormattedError): AppError {
  const code = error.extensions?.code;
  const details = (error.extensions?.details as Record<string, unknown> | undefined) ?? {};
  if (isErrorCode(code)) return new AppError(code, error.message, details);
  const mapped = typeof code === "string" ? graphqlCodes[code] : undefined;
  if (mapped === "invalid_request") return variableError(error.message);
  // The gateway passes variables of a custom scalar (JSONObject) on unchecked; the subgraph refuses them.
  if (code === "DOWNSTREAM_SERVICE_ERROR" && error.message.startsWith('Variable "$'))
    return variableError(error.message);
  if (mapped) return new AppError(mapped, error.message, details);
  return new AppError("internal_error", "internal error");
}

/** The data of a successful result, or the result's first error thrown as an AppError. */
export function dataOf(result: OperationResult): Record<string, unknown> {
  const first = result.errors?.[0];
  if (first) throw toAppError(first);
  return result.data ?? {};
}
