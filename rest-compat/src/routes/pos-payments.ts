import { idempotencyKeyOf, replayHeaders } from "../gateway-request";
import { dataOf } from "../graphql";
import { operationRoute as route } from "../operation-route";
import type { RestResponse, RestRoute } from "../router";
import { listFilters } from "./pos-orders";

const paymentFields = `id merchant_id store_id bill_id split_id device_id amount tip_amount total_amount
  payment_method { type provider } status payment_intent_id transaction_id payment_token approval_code
  card_document_number card_last_4 card_brand card_arn cash_received change_amount refund_amount refund_reason
  failure_code failure_message created_at updated_at completed_at`;

const createMutation = `mutation CreatePosPayment($input: CreatePosPaymentInput!, $idempotency_key: String) {
  createPosPayment(input: $input, idempotency_key: $idempotency_key) { payment { ${paymentFields} } replayed }
}`;

const refundFields = `id payment_id bill_id merchant_id store_id amount reason staff_code device_id user_id status
  gateway_refund_id failure_code failure_message created_at completed_at`;

const refundMutation = `mutation RefundPosPayment($payment_id: ID!, $input: RefundPosPaymentInput!,
  $idempotency_key: String) {
  refundPosPayment(payment_id: $payment_id, input: $input, idempotency_key: $idempotency_key) {
    refund { ${refundFields} } payment { ${paymentFields} } replayed
  }
}`;

export const posPaymentRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/api/v1/payments",
    alsoUnprefixed: true,
    async handle(request, execute): Promise<RestResponse> {
      const variables = { input: request.body.fields, idempotency_key: idempotencyKeyOf(request) };
      const result = dataOf(await execute(createMutation, variables, request.caller)).createPosPayment as {
        payment: unknown;
        replayed: boolean;
      };
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
    `query PosPayments($store_id: Int, $bill_id: ID, $status: PosPaymentStatus, $limit: Int, $offset: Int) {
      posPayments(store_id: $store_id, bill_id: $bill_id, status: $status, limit: $limit, offset: $offset) {
        ${paymentFields}
      }
    }`,
    (request) => listFilters(request, ["bill_id", "status"]),
  ),
  route(
    "GET",
    "/api/v1/payments/:id",
    "posPayment",
    `query PosPayment($id: ID!) { posPayment(id: $id) { ${paymentFields} } }`,
    ({ params }) => ({ id: params.id }),
  ),
  route(
    "PATCH",
    "/api/v1/payments/:id",
    "recordCardResult",
    `mutation RecordCardResult($id: ID!, $input: CardResultInput!) {
      recordCardResult(id: $id, input: $input) { ${paymentFields} }
    }`,
    ({ params, body }) => ({ id: params.id, input: body.fields }),
  ),
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
      const result = dataOf(await execute(refundMutation, variables, request.caller)).refundPosPayment as {
        refund: Record<string, unknown>;
        payment: unknown;
        replayed: boolean;
      };
      return {
        status: 201,
        body: { ...result.refund, payment: result.payment },
        headers: replayHeaders(result),
      };
    },
  },
  route(
    "GET",
    "/api/v1/payments/:id/refund-status",
    "posRefundStatus",
    `query PosRefundStatus($payment_id: ID!) {
      posRefundStatus(payment_id: $payment_id) {
        payment_id payment_status amount refund_amount pending_amount refundable_amount refunds { ${refundFields} }
      }
    }`,
    ({ params }) => ({ payment_id: params.id }),
  ),
];
