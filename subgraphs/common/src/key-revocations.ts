import { type EventPayload, eventRow } from "./events";

/**
 * API keys stopped signing: one key revoked, or every key of a deactivated partner (`api_key_id` null). The payments
 * subgraph writes it as an outbox event in the revocation's transaction; every edge process hears it on the bus's
 * internal topic and forgets the partners' secrets it keeps for verifying signatures, so a revoked key is refused
 * within the bus's latency instead of the secrets cache's lifetime (docs/decisions/gateway.md, "Key revocations
 * reach every edge").
 */
export const API_KEYS_REVOKED = "api_keys.revoked";

export type ApiKeysRevoked = EventPayload<"api_keys.revoked">;

/** The outbox row that announces a revocation, for the payments subgraph's `outbox_events`. */
export function keysRevokedOutboxRow(revoked: ApiKeysRevoked, at: Date) {
  return eventRow(API_KEYS_REVOKED, `client_partner:${revoked.client_partner_id}`, revoked, at);
}
