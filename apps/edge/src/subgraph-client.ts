import { AppError, type Caller, callSubgraphAs, type SubgraphEndpoint } from "@pos-cloud/common";
import { type ExecuteOperation, type Operation, type RouteVariables, runOperation } from "@pos-cloud/rest-compat";

const edgeItself: Caller = { type: "service", id: "edge", scopes: [] };

/**
 * Runs operations on one subgraph directly, on behalf of a caller, over the same in-process or HTTP hop as the
 * gateway: for what the public graph leaves out (`@inaccessible`), which the gateway cannot execute.
 */
export function subgraphExecutor(
  subgraphs: Record<string, SubgraphEndpoint>,
  internalToken: string,
  subgraph: string,
): ExecuteOperation {
  return async (query, variables, caller) => {
    const endpoint = subgraphs[subgraph];
    if (!endpoint) throw new AppError("internal_error", `no endpoint for subgraph ${subgraph}`);
    return callSubgraphAs(endpoint, internalToken, { query, variables }, caller);
  };
}

/**
 * Runs an operation of `operations/<subgraph>/*.graphql` on that subgraph directly, as the edge itself (`service`
 * caller), for what the edge alone may see: signing keys to verify tokens, partner secrets to verify signatures,
 * seen signatures. Such fields are `@inaccessible` in the supergraph and answer only a `service` caller, so no
 * client can reach them.
 */
export function createSubgraphClient(subgraphs: Record<string, SubgraphEndpoint>, internalToken: string) {
  return function callSubgraph<Result, Variables>(
    subgraph: string,
    operation: Operation<Result, Variables>,
    variables: RouteVariables<Variables>,
  ): Promise<Result> {
    return runOperation(subgraphExecutor(subgraphs, internalToken, subgraph), operation, variables, edgeItself);
  };
}

export type CallSubgraph = ReturnType<typeof createSubgraphClient>;
