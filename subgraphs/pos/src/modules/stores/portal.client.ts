import type { DocumentTypeDecoration } from "@graphql-typed-document-node/core";
import { AppError, type Caller, callSubgraphAs, isErrorCode, type SubgraphEndpoint } from "@pos-cloud/common";
import type { FormattedExecutionResult } from "graphql";

/**
 * One operation on the portal subgraph for a caller, over the same internal hop the gateway uses: the POS learns
 * about stores and staff from the portal's API, never from its tables.
 */
export type PortalCall = (
  query: string,
  variables: Record<string, unknown>,
  caller: Caller,
) => Promise<FormattedExecutionResult>;

/** The portal in this process (embedded wiring) or at a URL (cluster wiring), with the internal credential. */
export function portalClient(endpoint: SubgraphEndpoint, internalToken: string): PortalCall {
  return (query, variables, caller) => callSubgraphAs(endpoint, internalToken, { query, variables }, caller);
}

/** One typed operation of `operations/` on the portal; its error, with the portal's code, or 502 when it has none. */
export async function askPortal<Result, Variables extends Record<string, unknown>>(
  portal: PortalCall,
  operation: DocumentTypeDecoration<Result, Variables>,
  variables: Variables,
  caller: Caller,
): Promise<Result> {
  const result = await portal(operation.toString(), variables, caller);
  const error = result.errors?.[0];
  if (error) {
    const code = error.extensions?.code;
    const details = (error.extensions?.details ?? {}) as Record<string, unknown>;
    throw isErrorCode(code)
      ? new AppError(code, error.message, details)
      : new AppError("bad_gateway", "the portal failed");
  }
  return result.data as Result;
}
