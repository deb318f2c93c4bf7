import { operationRoute as route } from "../operation-route";
import {
  CloseSettlementDocument,
  CreateSettlementDocument,
  ResolveCardSettlementDifferencesDocument,
  SettlementDocument,
  SettlementsDocument,
} from "../operations/gateway.generated";
import { bodyField } from "../params";
import type { RestRoute } from "../router";
import { listFilters } from "./pos-orders";

export const posSettlementRoutes: RestRoute[] = [
  route(
    "POST",
    "/api/v1/settlements",
    "createSettlement",
    CreateSettlementDocument,
    ({ body }) => ({ input: body.fields }),
    {
      status: 201,
    },
  ),
  route(
    "GET",
    "/api/v1/settlements",
    "settlements",
    SettlementsDocument,
    (request) => listFilters(request, ["start_date", "end_date", "status"]),
    { page: true },
  ),
  route("GET", "/api/v1/settlements/:id", "settlement", SettlementDocument, ({ params }) => ({ id: params.id })),
  route("POST", "/api/v1/settlements/:id/close", "closeSettlement", CloseSettlementDocument, ({ params, body }) => ({
    id: params.id,
    input: body.fields,
  })),
  route(
    "POST",
    "/api/v1/settlements/:id/card-differences/resolve",
    "resolveCardSettlementDifferences",
    ResolveCardSettlementDifferencesDocument,
    ({ params, body }) => ({ input: { settlement_id: params.id, note: bodyField(body.fields, "note") } }),
  ),
];
