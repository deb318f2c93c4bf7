import { idempotencyKeyOf, replayHeaders } from "../gateway-request";
import { runOperation } from "../graphql";
import { SyncMerchantsDocument } from "../operations/gateway.generated";
import type { RestRequest, RestRoute } from "../router";

const sync = (request: RestRequest) => ({ input: request.body.fields, idempotency_key: idempotencyKeyOf(request) });

export const syncRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/v1/sync/merchants",
    auth: "hmac",
    // Two portal processes may push the same configuration in the same second: the same bytes, so the same
    // signature. With a key, the second gets the first's answer rather than the replay check's 401.
    idempotent: true,
    doc: { operation: SyncMerchantsDocument, field: "syncMerchants", status: 200, variables: sync, omit: ["replayed"] },
    async handle(request, execute) {
      const { syncMerchants: result } = await runOperation(
        execute,
        SyncMerchantsDocument,
        sync(request),
        request.caller,
      );
      return {
        status: 200,
        body: { synced_merchants: result.synced_merchants, synced_stores: result.synced_stores },
        headers: replayHeaders(result),
      };
    },
  },
];
