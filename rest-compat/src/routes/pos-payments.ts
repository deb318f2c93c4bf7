import { idempotencyKeyOf, replayHeaders } from "../gateway-request";
import { runOperation } from "../graphql";
import { operationRoute as route } from "../operation-route";
import {
  CreatePosPaymentDocument,
  PosPaymentDocument,
  PosPaymentsDocument,
  PosRefundStatusDocument,
  RecordCardResultDocument,
  RefundPosPaymentDocument,
} from "../operations/gateway.generated";
import type { RestResponse, RestRoute } from "../router";
import { listFilters } from "./pos-orders";

export const posPaymentRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/api/v1/payments",
    alsoUnprefixed: true,
    async handle(request, execute): Promise<RestResponse> {
      const variables = { input: request.body.fields, idempotency_key: idempotencyKeyOf(request) };
      const { createPosPayment: result } = await runOperation(
        execute,
        CreatePosPaymentDocument,
        variables,
        request.caller,
      );
      return {
        status: 201,
        body: result.payment,
        headers: replayHeaders(result),
      };
    },
  },
  route(
    "GET",
    "/api/v1/payments",
    "posPayments",
    PosPaymentsDocument,
    (request) => listFilters(request, ["bill_id", "status", "after"]),
    { page: true },
  ),
  route("GET", "/api/v1/payments/:id", "posPayment", PosPaymentDocument, ({ params }) => ({ id: params.id })),
  route("PATCH", "/api/v1/payments/:id", "recordCardResult", RecordCardResultDocument, ({ params, body }) => ({
    id: params.id,
    input: body.fields,
  })),
  {
    method: "POST",
    path: "/api/v1/payments/:id/refund",
    alsoUnprefixed: true,
    async handle(request, execute): Promise<RestResponse> {
      const variables = {
        payment_id: request.params.id,
        input: request.body.fields,
        idempotency_key: idempotencyKeyOf(request),
      };
      const { refundPosPayment: result } = await runOperation(
        execute,
        RefundPosPaymentDocument,
        variables,
        request.caller,
      );
      return {
        status: 201,
        body: { ...result.refund, payment: result.payment },
        headers: replayHeaders(result),
      };
    },
  },
  route("GET", "/api/v1/payments/:id/refund-status", "posRefundStatus", PosRefundStatusDocument, ({ params }) => ({
    payment_id: params.id,
  })),
];
