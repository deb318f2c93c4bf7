import { AppError, type Caller, callerHeaders } from "@pos-cloud/common";
import { dataOf } from "@pos-cloud/rest-compat";
import type { FormattedExecutionResult } from "graphql";
import type { SubgraphEndpoint } from "./gateway";

const edgeItself: Caller = { type: "service", id: "edge", scopes: [] };

/**
 * Calls one subgraph directly, as the edge itself (`service` caller), for what the edge alone may see: signing
 * keys to verify tokens, partner secrets to verify signatures. Such fields are `@inaccessible` in the supergraph,
 * so no client can reach them through the gateway. Uses the same in-process or HTTP hop as the gateway.
 */
export function createSubgraphClient(subgraphs: Record<string, SubgraphEndpoint>, internalToken: string) {
  return async function callSubgraph(
    subgraph: string,
    query: string,
    variables: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const endpoint = subgraphs[subgraph];
    if (!endpoint) throw new AppError("internal_error", `no endpoint for subgraph ${subgraph}`);
    const headers = callerHeaders(edgeItself, internalToken);
    if ("host" in endpoint) return dataOf(await endpoint.host.execute({ query, variables }, headers));
    const response = await fetch(endpoint.url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ query, variables }),
    });
    return dataOf((await response.json()) as FormattedExecutionResult);
  };
}

export type CallSubgraph = ReturnType<typeof createSubgraphClient>;
