import { type Caller, callSubgraphAs, type SubgraphEndpoint } from "@pos-cloud/common";
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
