import { operationRoute as route } from "../operation-route";
import { integerParam, pageParams } from "../params";
import type { RestRequest, RestRoute } from "../router";

export const orderFields = `id merchant_id store_id device_id order_number order_type table_number customer_id
  items { id sequence item_name quantity unit_price subtotal } subtotal tax_amount discount_amount total_amount
  status bill_id created_at updated_at completed_at cancelled_at`;

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
    `mutation CreateOrder($input: CreateOrderInput!) { createOrder(input: $input) { ${orderFields} } }`,
    ({ body }) => ({ input: body.fields }),
    { status: 201 },
  ),
  route(
    "GET",
    "/api/v1/orders",
    "orders",
    `query Orders($store_id: Int, $status: OrderStatus, $table_number: String, $device_id: ID, $from: DateTime,
      $to: DateTime, $limit: Int, $offset: Int) {
      orders(store_id: $store_id, status: $status, table_number: $table_number, device_id: $device_id, from: $from,
        to: $to, limit: $limit, offset: $offset) { nodes { ${orderFields} } } }`,
    (request) => listFilters(request, ["status", "table_number", "device_id", "from", "to"]),
    { page: true },
  ),
  route(
    "GET",
    "/api/v1/orders/:id",
    "order",
    `query Order($id: ID!) { order(id: $id) { ${orderFields} } }`,
    ({ params }) => ({ id: params.id }),
  ),
  route(
    "PATCH",
    "/api/v1/orders/:id",
    "updateOrder",
    `mutation UpdateOrder($id: ID!, $input: UpdateOrderInput!) { updateOrder(id: $id, input: $input) { ${orderFields} } }`,
    ({ params, body }) => ({ id: params.id, input: body.fields }),
  ),
  route(
    "POST",
    "/api/v1/orders/:id/cancel",
    "cancelOrder",
    `mutation CancelOrder($id: ID!) { cancelOrder(id: $id) { ${orderFields} } }`,
    ({ params }) => ({ id: params.id }),
  ),
];
