import { AppError } from "@pos-cloud/common";
import { type Operation, type RouteVariables, runOperation } from "./graphql";
import type { RestRequest, RestResponse, RestRoute } from "./router";

/** A service's own limit (provisioning) answers like the edge's: 429 with the rate-limit headers. */
function limited(error: unknown): RestResponse | undefined {
  if (!(error instanceof AppError) || error.code !== "rate_limit_exceeded") return undefined;
  const { limit, reset } = error.details;
  if (typeof limit !== "number" || typeof reset !== "number") return undefined;
  return {
    status: error.status,
    body: { code: error.code, message: error.message, details: error.details },
    headers: {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(reset),
      "retry-after": String(Math.max(1, reset - Math.floor(Date.now() / 1000))),
    },
  };
}

/**
 * The common route: variables from the request, one GraphQL operation (a generated document of
 * `rest-compat/src/operations`), the named root field as the body (200 unless `status` says otherwise). A `page`
 * field is a list page: its `nodes` are the body, the spec's list response. Portal and POS routes (`/api/v1/...`)
 * are served with and without the prefix; gateway routes (`/v1/...`) name the authentication the edge performs
 * before them.
 */
export function operationRoute<Result, Variables>(
  method: RestRoute["method"],
  path: string,
  field: keyof Result & string,
  operation: Operation<Result, Variables>,
  variables: (request: RestRequest) => RouteVariables<Variables>,
  {
    status = 200,
    page = false,
    auth,
    subgraph,
  }: { status?: number; page?: boolean } & Pick<RestRoute, "auth" | "subgraph"> = {},
): RestRoute {
  return {
    method,
    path,
    auth,
    subgraph,
    alsoUnprefixed: path.startsWith("/api/v1/"),
    async handle(request, execute) {
      try {
        const data = (await runOperation(execute, operation, variables(request), request.caller))[field];
        return { status, body: page ? (data as { nodes: unknown[] }).nodes : data };
      } catch (error) {
        const response = limited(error);
        if (response) return response;
        throw error;
      }
    },
  };
}
