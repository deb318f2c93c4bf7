import { AppError, type ListPage } from "@pos-cloud/common";
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
 * A list's paging, in headers so that its body stays the spec's bare array: the size of the whole list
 * (`X-Total-Count`) and, while more follow, the next page's address (`Link`, RFC 8288) with the same cursor a
 * GraphQL page gives (`after`: its `end_cursor`), or the next offset for lists that take none.
 */
function pageHeaders(target: string, list: ListPage<unknown>): Record<string, string> {
  const headers: Record<string, string> = { "x-total-count": String(list.total_count) };
  if (!list.page_info.has_next_page) return headers;
  const next = new URL(target, "http://next.invalid");
  if (list.page_info.end_cursor) {
    next.searchParams.set("after", list.page_info.end_cursor);
    next.searchParams.delete("offset");
  } else {
    const offset = Number(next.searchParams.get("offset") ?? 0);
    next.searchParams.set("offset", String(offset + list.nodes.length));
  }
  headers.link = `<${next.pathname}${next.search}>; rel="next"`;
  return headers;
}

/**
 * The common route: variables from the request, one GraphQL operation (a generated document of
 * `rest-compat/src/operations`), the named root field as the body (200 unless `status` says otherwise). A `page`
 * field is a list page: its `nodes` are the body, the spec's list response, and its paging goes in headers. Portal and POS routes (`/api/v1/...`)
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
    anonymous,
    actsOn,
  }: { status?: number; page?: boolean; anonymous?: boolean } & Pick<RestRoute, "auth" | "subgraph" | "actsOn"> = {},
): RestRoute {
  return {
    method,
    path,
    auth,
    subgraph,
    actsOn,
    alsoUnprefixed: path.startsWith("/api/v1/"),
    doc: { operation, field, status, page, anonymous, variables },
    async handle(request, execute) {
      try {
        const data = (await runOperation(execute, operation, variables(request), request.caller))[field];
        if (!page) return { status, body: data };
        const list = data as ListPage<unknown>;
        return { status, body: list.nodes, headers: pageHeaders(request.target, list) };
      } catch (error) {
        const response = limited(error);
        if (response) return response;
        throw error;
      }
    },
  };
}
