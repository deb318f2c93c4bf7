import { operationRoute as route } from "../operation-route";
import type { RestRoute } from "../router";
import { listFilters } from "./pos-orders";

export const billFields = `id merchant_id store_id order_id bill_number staff_code customer_id tax_percentage subtotal
  discount_amount tax_amount total_amount paid_amount refunded_amount remaining_amount
  status is_split is_combined combined_bill_ids
  combined_table_numbers combined_into_bill_id
  splits { id sequence amount paid_amount remaining_amount item_ids status } created_at updated_at paid_at cancelled_at`;

export const posBillRoutes: RestRoute[] = [
  route(
    "POST",
    "/api/v1/bills",
    "createBill",
    `mutation CreateBill($input: CreateBillInput!) { createBill(input: $input) { ${billFields} } }`,
    ({ body }) => ({ input: body.fields }),
    { status: 201 },
  ),
  route(
    "GET",
    "/api/v1/bills",
    "bills",
    `query Bills($store_id: Int, $status: BillStatus, $table_number: String, $order_id: ID, $from: DateTime,
      $to: DateTime, $limit: Int, $offset: Int) {
      bills(store_id: $store_id, status: $status, table_number: $table_number, order_id: $order_id, from: $from,
        to: $to, limit: $limit, offset: $offset) { nodes { ${billFields} } } }`,
    (request) => listFilters(request, ["status", "table_number", "order_id", "from", "to"]),
    { page: true },
  ),
  route(
    "POST",
    "/api/v1/bills/combine",
    "combineBills",
    `mutation CombineBills($input: CombineBillsInput!) { combineBills(input: $input) { ${billFields} } }`,
    ({ body }) => ({ input: body.fields }),
    { status: 201 },
  ),
  route(
    "GET",
    "/api/v1/bills/:id",
    "bill",
    `query Bill($id: ID!) { bill(id: $id) { ${billFields} } }`,
    ({ params }) => ({ id: params.id }),
  ),
  route(
    "POST",
    "/api/v1/bills/:id/split",
    "splitBill",
    `mutation SplitBill($id: ID!, $input: SplitBillInput!) { splitBill(id: $id, input: $input) { ${billFields} } }`,
    ({ params, body }) => ({ id: params.id, input: body.fields }),
  ),
  route(
    "POST",
    "/api/v1/bills/:id/cancel",
    "cancelBill",
    `mutation CancelBill($id: ID!) { cancelBill(id: $id) { ${billFields} } }`,
    ({ params }) => ({ id: params.id }),
  ),
];
