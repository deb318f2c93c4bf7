import { API_KEYS_REVOKED } from "@pos-cloud/common";
import type { BusSubscription, MessageBus } from "@pos-cloud/common/messaging";

/**
 * Each edge process keeps partners' secrets for a while, so a burst of signed calls asks the payments subgraph once;
 * a revocation (`api_keys.revoked` on the bus's internal topic, which reaches every edge process as a session
 * revocation does) makes it forget them all at once. Revocations are rare operator acts: forgetting every client_id
 * costs one look-up each, and needs no map from a partner to the client_ids it signs with.
 */
export function forgetSecretsOnRevocation(bus: MessageBus, forgetSecrets: () => void): Promise<BusSubscription> {
  return bus.listen("events.internal", (event) => {
    if (event.event_type === API_KEYS_REVOKED) forgetSecrets();
  });
}
