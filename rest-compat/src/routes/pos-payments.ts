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
import type { RestRequest, RestResponse, RestRoute } from "../router";
import { listFilters } from "./pos-orders";

const creation = (request: RestRequest) => ({ input: request.body.fields, idempotency_key: idempotencyKeyOf(request) });
const refund = (request: RestRequest) => ({
  payment_id: request.params.id,
  input: request.body.fields,
  idempotency_key: idempotencyKeyOf(request),
});

export const posPaymentRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/api/v1/payments",
    alsoUnprefixed: true,
    doc: {
      operation: CreatePosPaymentDocument,
      field: "createPosPayment",
      status: 201,
      variables: creation,
      result: "payment",
    },
    async handle(request, execute): Promise<RestResponse> {
      const { createPosPayment: result } = await runOperation(
        execute,
        CreatePosPaymentDocument,
        creation(request),
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
    doc: {
      operation: RefundPosPaymentDocument,
      field: "refundPosPayment",
      status: 201,
      variables: refund,
      result: "refund",
      merge: ["payment"],
    },
    async handle(request, execute): Promise<RestResponse> {
      const { refundPosPayment: result } = await runOperation(
        execute,
        RefundPosPaymentDocument,
        refund(request),
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
