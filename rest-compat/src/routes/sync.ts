import { runOperation } from "../graphql";
import { SyncMerchantsDocument } from "../operations/gateway.generated";
import type { RestRequest, RestRoute } from "../router";

const sync = ({ body }: RestRequest) => ({ input: body.fields });

export const syncRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/v1/sync/merchants",
    auth: "hmac",
    doc: { operation: SyncMerchantsDocument, field: "syncMerchants", status: 200, variables: sync },
    async handle(request, execute) {
      const data = await runOperation(execute, SyncMerchantsDocument, sync(request), request.caller);
      return { status: 200, body: data.syncMerchants };
    },
  },
];
