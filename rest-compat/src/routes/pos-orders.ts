import { idempotencyKeyOf } from "../gateway-request";
import { operationRoute as route } from "../operation-route";
import {
  CancelOrderDocument,
  CreateOrderDocument,
  OrderDocument,
  OrdersDocument,
  UpdateOrderDocument,
} from "../operations/gateway.generated";
import { integerParam, pageParams } from "../params";
import type { RestRequest, RestRoute } from "../router";

/** A list's filters as the query string gives them: absent ones stay out, checked by GraphQL and the service. */
export const listFilters = ({ query }: RestRequest, names: string[]) => ({
  store_id: integerParam(query.get("store_id"), "store_id"),
  ...Object.fromEntries(names.map((name) => [name, query.get(name) ?? undefined])),
  ...pageParams(query),
});

export const posOrderRoutes: RestRoute[] = [
  route(
    "POST",
    "/api/v1/orders",
    "createOrder",
    CreateOrderDocument,
    (request) => ({ input: request.body.fields, idempotency_key: idempotencyKeyOf(request) }),
    { status: 201 },
  ),
  route(
    "GET",
    "/api/v1/orders",
    "orders",
    OrdersDocument,
    (request) => listFilters(request, ["status", "table_number", "device_id", "from", "to", "after"]),
    { page: true },
  ),
  route("GET", "/api/v1/orders/:id", "order", OrderDocument, ({ params }) => ({ id: params.id })),
  route("PATCH", "/api/v1/orders/:id", "updateOrder", UpdateOrderDocument, ({ params, body }) => ({
    id: params.id,
    input: body.fields,
  })),
  route("POST", "/api/v1/orders/:id/cancel", "cancelOrder", CancelOrderDocument, ({ params }) => ({ id: params.id })),
];
