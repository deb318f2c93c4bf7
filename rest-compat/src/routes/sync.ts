import { dataOf } from "../graphql";
import type { RestRoute } from "../router";

export const syncRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/v1/sync/merchants",
    auth: "hmac",
    async handle({ body, caller }, execute) {
      const data = dataOf(
        await execute(
          `mutation SyncMerchants($input: SyncMerchantsInput!) { syncMerchants(input: $input) { synced_merchants synced_stores } }`,
          { input: body.fields },
          caller,
        ),
      );
      return { status: 200, body: data.syncMerchants };
    },
  },
];
