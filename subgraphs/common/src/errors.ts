import { GraphQLError } from "graphql";

/** Every error a client can see, with the HTTP status the REST face answers with. */
export const errorStatus = {
  invalid_request: 400,
  unauthorized: 401,
  invalid_token: 401,
  api_key_expired: 401,
  api_key_revoked: 401,
  forbidden: 403,
  missing_permission: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  idempotency_conflict: 409,
  invalid_state: 409,
  intent_expired: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  locked: 423,
  headers_too_large: 431,
  rate_limit_exceeded: 429,
  subscription_limit: 429,
  internal_error: 500,
  bad_gateway: 502,
  service_unavailable: 503,
  gateway_timeout: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;
export type ErrorDetails = Record<string, unknown>;

/** An expected failure: it reaches the client as `{code, message, details}` with `errorStatus[code]`. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(errorStatus, value);
}

/** The two codes GraphQL clients know by Apollo's names: Apollo Client's token refresh looks for `UNAUTHENTICATED`. */
const apolloNames: Partial<Record<ErrorCode, string>> = {
  unauthorized: "UNAUTHENTICATED",
  internal_error: "INTERNAL_SERVER_ERROR",
};

/**
 * A code as `/graphql` and graphql-ws answer it (`extensions.code`): one spelling for every GraphQL error, capitals
 * like GraphQL's own (`GRAPHQL_VALIDATION_FAILED`); the table in docs/errors.md.
 */
export const graphqlCode = (code: ErrorCode): string => apolloNames[code] ?? code.toUpperCase();

/** The platform's code of an `extensions.code` in either spelling; undefined for GraphQL's own codes. */
export function errorCodeOf(code: unknown): ErrorCode | undefined {
  if (typeof code !== "string") return undefined;
  if (isErrorCode(code)) return code;
  const named = Object.entries(apolloNames).find(([, name]) => name === code)?.[0];
  if (named) return named as ErrorCode;
  const lower = code.toLowerCase();
  return code === code.toUpperCase() && isErrorCode(lower) ? lower : undefined;
}

/** An expected failure as a GraphQL error: `{code, details}` as every subgraph reports them, and its HTTP status. */
export const asGraphQLError = (error: AppError) =>
  new GraphQLError(error.message, {
    extensions: { code: error.code, details: error.details, http: { status: error.status } },
  });

export const invalidField = (field: string, constraint: string, message: string) =>
  new AppError("invalid_request", message, { field, constraint });

export const notFound = (what: string) => new AppError("not_found", `${what} not found`);

/** Tenant ids (psp, merchant, store) are positive integers; anything else cannot name one. */
export function parseEntityId(value: string | number, field = "id"): number {
  const id = typeof value === "number" ? value : Number(value);
  if (!Number.isSafeInteger(id) || id <= 0)
    throw invalidField(field, "positive_integer", `${field} must be a positive integer`);
  return id;
}
