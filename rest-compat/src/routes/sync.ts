import { runOperation } from "../graphql";
import { SyncMerchantsDocument } from "../operations/gateway.generated";
import type { RestRoute } from "../router";

export const syncRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/v1/sync/merchants",
    auth: "hmac",
    async handle({ body, caller }, execute) {
      const data = await runOperation(execute, SyncMerchantsDocument, { input: body.fields }, caller);
      return { status: 200, body: data.syncMerchants };
    },
  },
];
