import { idempotencyKeyOf } from "../gateway-request";
import { operationRoute as route } from "../operation-route";
import {
  BillDocument,
  BillsDocument,
  CancelBillDocument,
  CombineBillsDocument,
  CreateBillDocument,
  SplitBillDocument,
} from "../operations/gateway.generated";
import type { RestRoute } from "../router";
import { listFilters } from "./pos-orders";

export const posBillRoutes: RestRoute[] = [
  route(
    "POST",
    "/api/v1/bills",
    "createBill",
    CreateBillDocument,
    (request) => ({ input: request.body.fields, idempotency_key: idempotencyKeyOf(request) }),
    { status: 201 },
  ),
  route(
    "GET",
    "/api/v1/bills",
    "bills",
    BillsDocument,
    (request) => listFilters(request, ["status", "table_number", "order_id", "from", "to", "after"]),
    { page: true },
  ),
  route("POST", "/api/v1/bills/combine", "combineBills", CombineBillsDocument, ({ body }) => ({ input: body.fields }), {
    status: 201,
  }),
  route("GET", "/api/v1/bills/:id", "bill", BillDocument, ({ params }) => ({ id: params.id })),
  route("POST", "/api/v1/bills/:id/split", "splitBill", SplitBillDocument, ({ params, body }) => ({
    id: params.id,
    input: body.fields,
  })),
  route("POST", "/api/v1/bills/:id/cancel", "cancelBill", CancelBillDocument, ({ params }) => ({ id: params.id })),
];
