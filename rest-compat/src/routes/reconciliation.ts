import { operationRoute as route } from "../operation-route";
import { ResolveQrDifferenceDocument } from "../operations/gateway.generated";
import { bodyField } from "../params";
import type { RestRoute } from "../router";

// No REST route reads QR differences (the console reads them on the store's day); a person resolves one by its id.
export const reconciliationRoutes: RestRoute[] = [
  route(
    "POST",
    "/api/v1/qr-differences/:id/resolve",
    "resolveQrDifference",
    ResolveQrDifferenceDocument,
    ({ params, body }) => ({ input: { id: params.id, note: bodyField(body.fields, "note") } }),
  ),
];
